import { readOggPackets } from './ogg-pages.ts';

const GRANULE_RATE = 48_000;

/** What an OGG/Opus file's headers say about it. */
export interface OggOpusInfo {
  channels: number;
  /** Seconds of audio, from the last granule position less the pre-skip. */
  durationSeconds: number;
  /** The audio packets, headers excluded. */
  audioPackets: Uint8Array[];
}

/**
 * Reads an OGG/Opus file's header and length without decoding it. Throws a RangeError when the
 * file is not OGG/Opus.
 */
export function readOggOpus(file: Uint8Array): OggOpusInfo {
  const { packets, lastGranule } = readOggPackets(file);
  const head = packets[0];
  if (head === undefined || new TextDecoder().decode(head.subarray(0, 8)) !== 'OpusHead')
    throw new RangeError('not an Opus stream');
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const preSkip = view.getUint16(10, true);
  return {
    channels: head[9] ?? 1,
    durationSeconds: Math.max(0, Number(lastGranule) - preSkip) / GRANULE_RATE,
    audioPackets: packets.slice(2),
  };
}
