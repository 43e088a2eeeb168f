/**
 * Voice messages: the OGG/Opus encoder's speed (seconds of speech encoded per second of one
 * core's time: "× real time"), and a member's voice message → the first voice reply posted,
 * through the real bot in this process (discord.js, the loopback Discord, PGlite) with speech
 * and chat stand-ins of fixed latency: transcription 300 ms, the reply's 4 events 25 ms apart,
 * 150 ms to each sentence's first audio.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { MessageFlags, type APIMessage } from 'discord-api-types/v10';
import { silentLogger } from '../src/core/logger.ts';
import { systemClock } from '../src/core/clock.ts';
import { OggOpusEncoder } from '../src/providers/speech/ogg-opus-encoder.ts';
import { createSpeechService } from '../src/providers/speech/speech-factory.ts';
import { startFakeDiscord } from '../tests/fake-discord/fake-discord.ts';
import { LlmStandIn } from '../tests/support/llm-stand-in/llm-stand-in.ts';
import { textScript } from '../tests/support/llm-stand-in/script.ts';
import { standInSpeechPcm } from '../tests/support/llm-stand-in/speech-wire.ts';
import { percentile, type BenchRow } from './bench-kit.ts';
import { startInProcessBot } from './support/in-process-bot.ts';

const TRANSCRIPTION_MS = 300;
const EVENT_DELAY_MS = 25;
const FIRST_AUDIO_MS = 150;
const REPLY = ['Of course. ', 'Here is a short answer. ', 'I hope it helps!'];
const RUNS = 5;
const ENCODED_SECONDS = 60;
const TARGETS = { encoderRealTime: 20, overheadMs: 500 };

export async function rows(): Promise<BenchRow[]> {
  return [encoderRow(), ...(await voiceReplyRows())];
}

function encoderRow(): BenchRow {
  const sentence = 'The quick brown fox jumps over the lazy dog, again and again. ';
  const pcm = standInSpeechPcm(
    sentence.repeat(Math.ceil(ENCODED_SECONDS / (sentence.length * 0.06))),
  );
  const seconds = pcm.byteLength / 48_000;
  const samples: number[] = [];
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    const encoder = new OggOpusEncoder();
    for (let offset = 0; offset < pcm.byteLength; offset += 4_800)
      encoder.push(pcm.subarray(offset, offset + 4_800));
    encoder.finish();
    samples.push(performance.now() - started);
  }
  const elapsedMs = percentile(samples, 50);
  const realTime = seconds / (elapsedMs / 1000);
  return {
    name: `voice: OGG/Opus encoder (opusscript, 24 kHz mono, ${Math.round(seconds)} s of speech)`,
    value: realTime,
    unit: '× real time',
    target: `≥ ${TARGETS.encoderRealTime}×`,
    pass: realTime >= TARGETS.encoderRealTime,
  };
}

async function voiceReplyRows(): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'voice-bench-'));
  const discord = await startFakeDiscord({ waitTimeoutMs: 60_000 });
  const llm = await LlmStandIn.start({
    handler: () => ({ ...textScript(...REPLY), eventDelayMs: EVENT_DELAY_MS }),
    speech: {
      transcribe: async () => {
        await delay(TRANSCRIPTION_MS);
        return { type: 'text', text: 'Can you help me with something?' };
      },
      speak: (call) => ({
        type: 'audio',
        pcm: standInSpeechPcm(call.text),
        firstChunkDelayMs: FIRST_AUDIO_MS,
      }),
    },
  });
  const speech = await createSpeechService({
    settings: {
      provider: 'openai',
      apiKey: undefined,
      baseUrl: llm.openAIBaseUrl,
      transcriptionModel: 'whisper-1',
      speechModel: 'tts-1',
      voice: 'alloy',
      maxVoiceMessageSeconds: 120,
    },
    clock: systemClock,
    random: Math.random,
    logger: silentLogger,
  });
  const bot = await startInProcessBot({
    discordApiUrl: discord.apiUrl,
    discordToken: discord.token,
    openAIBaseUrl: llm.openAIBaseUrl,
    database: { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
    dataDir,
    speech,
  });
  try {
    const member = discord.createUser({ username: 'member' }).id;
    const dm = discord.openDirectMessage(member);
    while (discord.commands().length === 0) await delay(50);
    await discord
      .invokeSlashCommand({
        userId: member,
        channelId: dm.id,
        command: 'config',
        subcommand: 'voice',
        options: { replies: 'asked' },
      })
      .waitForOriginal();
    const recording = memberRecording();
    const samples: number[] = [];
    for (let run = 0; run <= RUNS; run += 1) {
      const spoken = discord.waits.message({
        channelId: dm.id,
        authorId: discord.botUserId,
        where: (message: APIMessage) => ((message.flags ?? 0) & MessageFlags.IsVoiceMessage) !== 0,
      });
      const started = performance.now();
      discord.postMessage({
        authorId: member,
        channelId: dm.id,
        flags: MessageFlags.IsVoiceMessage,
        attachments: [recording],
      });
      await spoken;
      if (run > 0) samples.push(performance.now() - started);
      await bot.bot.idle();
    }
    const fixedMs =
      TRANSCRIPTION_MS + (REPLY.length + 1) * EVENT_DELAY_MS + REPLY.length * FIRST_AUDIO_MS;
    const p50 = percentile(samples, 50);
    return [
      {
        name: `voice: member's voice message → first voice reply posted p50 (stand-ins ${fixedMs} ms fixed, n=${samples.length})`,
        value: p50,
        unit: 'ms',
        target: `≤ ${fixedMs + TARGETS.overheadMs} ms`,
        pass: p50 <= fixedMs + TARGETS.overheadMs,
      },
    ];
  } finally {
    await bot.close();
    await llm.close();
    await discord.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function memberRecording() {
  const encoder = new OggOpusEncoder();
  encoder.push(standInSpeechPcm('can you help me with something'));
  const voice = encoder.finish();
  return {
    filename: 'voice-message.ogg',
    contentType: 'audio/ogg',
    data: Buffer.from(voice.ogg),
    durationSecs: voice.durationSeconds,
    waveform: Buffer.from(voice.waveform).toString('base64'),
  };
}
