import OpusScript from 'opusscript';
import { SPEECH_PCM } from '../../core/speech.ts';
import { joinBytes, lacingSegments, PAGE_FLAGS, writeOggPage } from './ogg-pages.ts';
import { voiceWaveform } from './voice-waveform.ts';

/** 20 ms frames: what Discord's own voice messages use, and Opus's sweet spot for speech. */
const FRAME_SAMPLES = (SPEECH_PCM.sampleRate * 20) / 1000;
const FRAME_BYTES = FRAME_SAMPLES * SPEECH_PCM.bytesPerSample * SPEECH_PCM.channels;
/** Ogg granule positions of Opus count 48 kHz samples whatever the input rate. */
const GRANULE_RATE = 48_000;
const GRANULE_PER_FRAME = (FRAME_SAMPLES * GRANULE_RATE) / SPEECH_PCM.sampleRate;
/** libopus's encoder look-ahead at 48 kHz (6.5 ms): the decoder drops it from the start. */
const PRE_SKIP = 312;
/** About one second of audio per page: small pages waste bytes, huge ones delay nothing here. */
const PACKETS_PER_PAGE = 50;
/** Waveform levels are measured over 100 ms slices. */
const LEVEL_SAMPLES = SPEECH_PCM.sampleRate / 10;
const VOICE_BITRATE = 32_000;
const VENDOR = 'tomodachi-bot';

/** A finished voice recording, ready to post as a Discord voice message. */
export interface EncodedVoice {
  /** An OGG/Opus file. */
  ogg: Uint8Array;
  durationSeconds: number;
  /** Discord's waveform bytes (see voice-waveform.ts). */
  waveform: Uint8Array;
}

/**
 * Encodes SPEECH_PCM to an OGG/Opus file as it arrives (libopus compiled to WebAssembly by the
 * `opusscript` package: nothing native, nothing downloaded at install). Push chunks of any size
 * (whole samples), then `finish` once; the encoder's memory is freed there or by `dispose`.
 */
export class OggOpusEncoder {
  readonly #opus: OpusScript;
  readonly #serial: number;
  readonly #pages: Uint8Array[] = [];
  #pending: Uint8Array[] = [];
  #pendingSegments = 0;
  #buffer = new Uint8Array(FRAME_BYTES);
  #buffered = 0;
  #samples = 0;
  #granule = BigInt(PRE_SKIP);
  /** The granule after the last packet waiting for the next page. */
  #pageGranule = 0n;
  #sequence = 0;
  readonly #levels: number[] = [];
  #levelSum = 0;
  #levelCount = 0;
  #disposed = false;

  constructor(options: { serial?: number } = {}) {
    this.#opus = new OpusScript(SPEECH_PCM.sampleRate, 1, OpusScript.Application.VOIP);
    this.#opus.setBitrate(VOICE_BITRATE);
    this.#serial = options.serial ?? 0x746f6d6f;
    this.#pages.push(this.#page(PAGE_FLAGS.first, 0n, [opusHead()]));
    this.#pages.push(this.#page(0, 0n, [opusTags()]));
  }

  /** Seconds of audio pushed so far. */
  get durationSeconds(): number {
    return this.#samples / SPEECH_PCM.sampleRate;
  }

  push(pcm: Uint8Array): void {
    if (this.#disposed) throw new Error('the encoder is finished');
    this.#measure(pcm);
    let offset = 0;
    while (offset < pcm.byteLength) {
      const take = Math.min(FRAME_BYTES - this.#buffered, pcm.byteLength - offset);
      this.#buffer.set(pcm.subarray(offset, offset + take), this.#buffered);
      this.#buffered += take;
      offset += take;
      if (this.#buffered === FRAME_BYTES) this.#encodeFrame(FRAME_SAMPLES);
    }
  }

  /** The file, its duration and waveform. The last partial frame is padded with silence. */
  finish(): EncodedVoice {
    if (this.#disposed) throw new Error('the encoder is finished');
    if (this.#buffered > 0) {
      const samples = this.#buffered / SPEECH_PCM.bytesPerSample;
      this.#buffer.fill(0, this.#buffered);
      this.#encodeFrame(samples);
    }
    if (this.#levelCount > 0) this.#levels.push(Math.sqrt(this.#levelSum / this.#levelCount));
    this.#flushPage(PAGE_FLAGS.last);
    const durationSeconds = this.durationSeconds;
    this.dispose();
    return {
      ogg: joinBytes(this.#pages),
      durationSeconds,
      waveform: voiceWaveform(this.#levels, durationSeconds),
    };
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#opus.delete();
  }

  /** Encodes the buffered frame, of which `samples` are real audio (the rest padding). */
  #encodeFrame(samples: number): void {
    const packet = this.#opus.encode(Buffer.from(this.#buffer), FRAME_SAMPLES);
    this.#buffered = 0;
    this.#samples += samples;
    // The end of a stream is trimmed by its last granule, so padding is not played.
    this.#granule += BigInt((samples * GRANULE_PER_FRAME) / FRAME_SAMPLES);
    const segments = lacingSegments(packet.byteLength);
    if (this.#pending.length >= PACKETS_PER_PAGE || this.#pendingSegments + segments > 255)
      this.#flushPage(0);
    this.#pending.push(new Uint8Array(packet));
    this.#pendingSegments += segments;
    this.#pageGranule = this.#granule;
  }

  #flushPage(flags: number): void {
    if (this.#pending.length === 0 && flags !== PAGE_FLAGS.last) return;
    this.#pages.push(this.#page(flags, this.#pageGranule, this.#pending));
    this.#pending = [];
    this.#pendingSegments = 0;
  }

  #page(flags: number, granule: bigint, packets: readonly Uint8Array[]): Uint8Array {
    const page = writeOggPage({
      flags,
      granule,
      serial: this.#serial,
      sequence: this.#sequence,
      packets,
    });
    this.#sequence += 1;
    return page;
  }

  #measure(pcm: Uint8Array): void {
    const view = new DataView(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    for (let offset = 0; offset + 1 < pcm.byteLength; offset += 2) {
      const sample = view.getInt16(offset, true);
      this.#levelSum += sample * sample;
      this.#levelCount += 1;
      if (this.#levelCount === LEVEL_SAMPLES) {
        this.#levels.push(Math.sqrt(this.#levelSum / this.#levelCount));
        this.#levelSum = 0;
        this.#levelCount = 0;
      }
    }
  }
}

function opusHead(): Uint8Array {
  const head = new Uint8Array(19);
  const view = new DataView(head.buffer);
  head.set(new TextEncoder().encode('OpusHead'), 0);
  head[8] = 1; // version
  head[9] = SPEECH_PCM.channels;
  view.setUint16(10, PRE_SKIP, true);
  view.setUint32(12, SPEECH_PCM.sampleRate, true);
  view.setInt16(16, 0, true); // output gain
  head[18] = 0; // channel mapping family: mono/stereo
  return head;
}

function opusTags(): Uint8Array {
  const vendor = new TextEncoder().encode(VENDOR);
  const tags = new Uint8Array(8 + 4 + vendor.byteLength + 4);
  const view = new DataView(tags.buffer);
  tags.set(new TextEncoder().encode('OpusTags'), 0);
  view.setUint32(8, vendor.byteLength, true);
  tags.set(vendor, 12);
  view.setUint32(12 + vendor.byteLength, 0, true); // no user comments
  return tags;
}
