/**
 * Conversation in a voice channel, through the real bot process (`node src/main.ts`, PGlite)
 * against the loopback Discord and voice server, with stand-ins of fixed latency:
 * transcription 300 ms, the model's first token 200 ms, each sentence's first audio 150 ms; the
 * bot ends an utterance after 500 ms of silence (VOICE_SILENCE_MS). Measured at the loopback
 * voice server, from the packets themselves:
 *  - member stops speaking → first reply audio packet, against the sum of those latencies;
 *  - a member talking over the bot → the bot's last voiced packet (barge-in → silence);
 *  - the longest gap between voiced packets inside a reply (queued sentences back to back);
 *  - the bot process's CPU per minute of conversation, and its resident memory over the run
 *    (exchanges back to back, real time: VOICE_BENCH_EXCHANGES, default 40, ≈ 6 s each).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import {
  LOOPBACK_VOICE_CA,
  type BotPacket,
} from '../tests/fake-discord/voice/loopback-voice-server.ts';
import { recordedSpeechPcm } from '../tests/support/llm-stand-in/recorded-speech.ts';
import { textScript } from '../tests/support/llm-stand-in/script.ts';
import { standInSpeechPcm } from '../tests/support/llm-stand-in/speech-wire.ts';
import { startHarness, type BotHarness } from '../tests/bot/support/bot-harness.ts';
import { updateScopeSettings } from '../src/db/scope-settings-repository.ts';
import { percentile, type BenchRow } from './bench-kit.ts';
import { processTreeCpuMs } from './support/bot-fleet.ts';

const SILENCE_MS = 500;
const TRANSCRIPTION_MS = 300;
const FIRST_TOKEN_MS = 200;
const FIRST_AUDIO_MS = 150;
const OVERHEAD_TARGET_MS = 150;
const BARGE_IN_TARGET_MS = 500;
const GAP_TARGET_MS = 100;
const QUESTION = recordedSpeechPcm('What is the weather like today?') ?? new Uint8Array();
const INTERRUPTION = standInSpeechPcm('Wait, wait, let me say something here.');
const REPLY = ['Sure. ', 'It is sunny and warm. ', 'Take a hat with you.'];
const LONG_REPLY = Array.from({ length: 10 }, (_, index) => `Here is sentence ${index + 1}. `);
const EXCHANGES = Number(process.env['VOICE_BENCH_EXCHANGES'] ?? 40);
const WARM_UP = 2;

interface World {
  guildId: string;
  lounge: string;
  alice: string;
}

export async function rows(): Promise<BenchRow[]> {
  const harness = await startVoiceHarness();
  try {
    await joinCall(harness);
    const conversation = await converse(harness);
    const bargeIns = await bargeInSamples(harness, 5);
    return report(conversation, bargeIns);
  } catch (error) {
    const logFile = process.env['VOICE_BENCH_LOG_FILE'];
    if (logFile !== undefined) {
      writeFileSync(
        logFile,
        harness.bot
          .logs()
          .map((line) => line.text)
          .join('\n'),
      );
    }
    throw error;
  } finally {
    await harness.dispose();
  }
}

async function startVoiceHarness(): Promise<BotHarness<World>> {
  const harness = await startHarness<World>({
    databaseKind: 'pglite',
    env: {
      SPEECH_PROVIDER: 'openai',
      VOICE_CHANNELS: 'on',
      VOICE_TEXT_CHAT: 'off',
      VOICE_SILENCE_MS: String(SILENCE_MS),
      NODE_EXTRA_CA_CERTS: LOOPBACK_VOICE_CA,
      LOG_LEVEL: 'info',
    },
    setup: (discord) => {
      const guild = discord.createGuild({ name: 'Voice bench' });
      const lounge = discord.createChannel({ guildId: guild.id, name: 'Lounge', kind: 'voice' });
      const alice = discord.createUser({ username: 'alice' }).id;
      discord.addMember({ guildId: guild.id, userId: alice });
      return { guildId: guild.id, lounge: lounge.id, alice };
    },
    // One member talks for minutes on end: no member rate limit (it would refuse the 11th a minute).
    seed: (db, world) =>
      updateScopeSettings(
        db,
        { id: world.guildId, kind: 'guild' },
        { memberTurnsPerMinute: 0 },
      ).then(() => undefined),
  });
  harness.llm.handleSpeech({
    transcribe: async (call) => {
      await delay(TRANSCRIPTION_MS);
      const long = call.audio.byteLength > QUESTION.byteLength * 1.1;
      return {
        type: 'text',
        text: long ? 'Wait, let me say something.' : 'What is the weather like?',
      };
    },
    speak: (call) => ({
      type: 'audio',
      pcm: standInSpeechPcm(call.text),
      firstChunkDelayMs: FIRST_AUDIO_MS,
    }),
  });
  return harness;
}

async function joinCall(harness: BotHarness<World>): Promise<void> {
  const { discord, world } = harness;
  discord.voice.join({ userId: world.alice, channelId: world.lounge });
  await harness.bot.waitForLog((line) => line.json?.['msg'] === 'slash commands ready', {
    timeoutMs: 120_000,
  });
  await discord
    .invokeSlashCommand({
      command: 'voice',
      subcommand: 'join',
      userId: world.alice,
      channelId: world.lounge,
    })
    .waitForOriginal();
}

function botPackets(harness: BotHarness<World>): BotPacket[] {
  return harness.discord.voice.server(harness.world.guildId)?.botPackets() ?? [];
}

function turnsFinished(harness: BotHarness<World>): number {
  return harness.bot.logs().filter((line) => line.json?.['msg'] === 'turn finished').length;
}

async function untilTurns(harness: BotHarness<World>, count: number): Promise<void> {
  await harness.bot.waitForLog(() => turnsFinished(harness) >= count, { timeoutMs: 120_000 });
}

let mode: 'conversation' | 'barge-in' = 'conversation';

/**
 * The stand-in model: the short reply (after its fixed first-token time) in the conversation; a
 * long reply to the question and a short one to the interruption in the barge-in runs (the
 * newest transcript in the request says which); a summary for the rolling summarizer's calls.
 */
function replies() {
  return async (request: { systemText: string; body: unknown }) => {
    if (/summari[sz]e/i.test(request.systemText))
      return textScript('They talked about the weather.');
    const body = JSON.stringify(request.body);
    const interrupted =
      body.lastIndexOf('Wait, let me say something.') >
      body.lastIndexOf('What is the weather like?');
    if (mode === 'barge-in') return interrupted ? textScript('Go on.') : textScript(...LONG_REPLY);
    await delay(FIRST_TOKEN_MS);
    return textScript(...REPLY);
  };
}

interface Conversation {
  firstAudioMs: number[];
  /** Per reply, the longest run of Opus silence between its voiced packets: the queue ran dry. */
  gapsMs: number[];
  /** Per reply, the longest time between two consecutive packets (the bot's timing, any kind). */
  jitterMs: number[];
  cpuMsPerMinute: number;
  rssMb: number[];
  minutes: number;
}

/** Exchanges back to back: the member asks, the bot answers in three sentences. */
async function converse(harness: BotHarness<World>): Promise<Conversation> {
  const { llm, discord, world, bot } = harness;
  llm.handle(replies());
  const pid = bot.pid ?? 0;
  const firstAudioMs: number[] = [];
  const gapsMs: number[] = [];
  const jitterMs: number[] = [];
  const rssMb: number[] = [];
  const cpuBefore = processTreeCpuMs(pid);
  const started = Date.now();
  for (let exchange = 0; exchange < EXCHANGES; exchange += 1) {
    const from = botPackets(harness).length;
    const turns = turnsFinished(harness);
    const stoppedAt = await discord.voice.speak({
      userId: world.alice,
      guildId: world.guildId,
      speech: QUESTION,
    });
    await untilTurns(harness, turns + 1);
    const voiced = botPackets(harness)
      .slice(from)
      .filter((packet) => !packet.silence);
    const first = voiced[0];
    // The first exchanges load the voice stack and warm the codecs: not counted.
    if (exchange >= WARM_UP && first !== undefined) firstAudioMs.push(first.at - stoppedAt);
    if (exchange >= WARM_UP) {
      const reply = botPackets(harness).slice(from);
      gapsMs.push(starvedMs(reply));
      jitterMs.push(
        longestGap(reply.slice(reply.indexOf(voiced[0]!), reply.lastIndexOf(voiced.at(-1)!) + 1)),
      );
    }
    if (exchange % 5 === 0 || exchange === EXCHANGES - 1) rssMb.push(residentMb(pid));
  }
  const minutes = (Date.now() - started) / 60_000;
  return {
    firstAudioMs,
    gapsMs,
    jitterMs,
    cpuMsPerMinute: (processTreeCpuMs(pid) - cpuBefore) / minutes,
    rssMb,
    minutes,
  };
}

/** The member who asked talks over a long reply: from their first packet to the bot's last. */
async function bargeInSamples(harness: BotHarness<World>, runs: number): Promise<number[]> {
  const { discord, world } = harness;
  const samples: number[] = [];
  mode = 'barge-in';
  for (let run = 0; run < runs; run += 1) {
    const turns = turnsFinished(harness);
    const from = botPackets(harness).length;
    await discord.voice.speak({ userId: world.alice, guildId: world.guildId, speech: QUESTION });
    const server = discord.voice.server(world.guildId)!;
    await server.until(
      () =>
        botPackets(harness)
          .slice(from)
          .filter((packet) => !packet.silence).length > 50
          ? true
          : undefined,
      60_000,
    );
    const interruptedAt = Date.now();
    await discord.voice.speak({
      userId: world.alice,
      guildId: world.guildId,
      speech: INTERRUPTION,
    });
    await untilTurns(harness, turns + 2);
    // The interrupted reply's packets: the next reply (to the interruption) starts seconds later.
    const last = botPackets(harness)
      .slice(from)
      .filter(
        (packet) =>
          !packet.silence && packet.at >= interruptedAt && packet.at < interruptedAt + 2_000,
      )
      .at(-1);
    samples.push((last?.at ?? interruptedAt) - interruptedAt);
  }
  return samples;
}

/** The longest run of silence frames between voiced packets, in ms (20 ms each). */
function starvedMs(reply: readonly BotPacket[]): number {
  const first = reply.findIndex((packet) => !packet.silence);
  const last = reply.findLastIndex((packet) => !packet.silence);
  let longest = 0;
  let run = 0;
  for (const packet of reply.slice(first, last + 1)) {
    run = packet.silence ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest * 20;
}

function longestGap(voiced: readonly BotPacket[]): number {
  let longest = 0;
  for (let index = 1; index < voiced.length; index += 1) {
    longest = Math.max(longest, (voiced[index]?.at ?? 0) - (voiced[index - 1]?.at ?? 0));
  }
  return longest;
}

function residentMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

function report(conversation: Conversation, bargeIns: number[]): BenchRow[] {
  const budget = SILENCE_MS + TRANSCRIPTION_MS + FIRST_TOKEN_MS + FIRST_AUDIO_MS;
  const firstAudio = percentile(conversation.firstAudioMs, 50);
  const bargeIn = percentile(bargeIns, 50);
  const gap = Math.max(...conversation.gapsMs);
  const rss = conversation.rssMb;
  const settled = rss.slice(Math.min(2, rss.length - 1));
  const growth = (settled.at(-1) ?? 0) - (settled[0] ?? 0);
  const n = conversation.firstAudioMs.length;
  return [
    {
      name: `voice channel: member stops speaking → first reply audio packet p50 (silence ${SILENCE_MS} + transcription ${TRANSCRIPTION_MS} + first token ${FIRST_TOKEN_MS} + first audio ${FIRST_AUDIO_MS} ms, n=${n})`,
      value: firstAudio,
      unit: 'ms',
      target: `≤ ${budget + OVERHEAD_TARGET_MS} ms`,
      pass: firstAudio <= budget + OVERHEAD_TARGET_MS,
    },
    {
      name: `voice channel: same, p95 (n=${n})`,
      value: percentile(conversation.firstAudioMs, 95),
      unit: 'ms',
    },
    {
      name: `voice channel: member talks over the bot → its last voiced packet p50 (n=${bargeIns.length}; includes 200 ms of speech to tell a voice from a noise)`,
      value: bargeIn,
      unit: 'ms',
      target: `≤ ${BARGE_IN_TARGET_MS} ms`,
      pass: bargeIn <= BARGE_IN_TARGET_MS,
    },
    {
      name: `voice channel: longest silence between queued sentences inside a reply (the queue ran dry; ${n} replies of 3 sentences)`,
      value: gap,
      unit: 'ms',
      target: `≤ ${GAP_TARGET_MS} ms`,
      pass: gap <= GAP_TARGET_MS,
    },
    {
      name: `voice channel: longest time between two consecutive packets inside a reply (timer and event-loop jitter; p50 / max over ${n} replies: ${percentile(conversation.jitterMs, 50).toFixed(0)} / ${Math.max(...conversation.jitterMs).toFixed(0)} ms)`,
      value: Math.max(...conversation.jitterMs),
      unit: 'ms',
    },
    {
      name: `voice channel: bot process CPU per minute of conversation (${conversation.minutes.toFixed(1)} min, ${n} exchanges)`,
      value: conversation.cpuMsPerMinute / 1000,
      unit: 'CPU s/min',
    },
    {
      name: `voice channel: bot resident memory growth after warm-up (${settled.length} readings over ${n - 10} exchanges; ${rss.map((mb) => mb.toFixed(0)).join(' → ')} MB)`,
      value: growth,
      unit: 'MB',
      target: '≤ 10 MB',
      pass: growth <= 10,
    },
  ];
}
