/**
 * Conversation in a voice channel through the real bot process: the loopback Discord answers the
 * bot's op 4 with voice state and server updates, the loopback voice server (voice gateway over
 * TLS, UDP, aead_aes256_gcm_rtpsize RTP, DAVE offered and downgraded) carries the members' speech
 * — real recorded speech and stand-in tones, encoded as their clients would — to the bot's real
 * @discordjs/voice, and records every packet the bot speaks back. The LLM stand-in transcribes
 * (by the length of what it is sent) and synthesizes. Waits are for events with generous
 * ceilings; no timing is asserted but a ceiling.
 */
import { writeFileSync } from 'node:fs';
import { MessageFlags } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pcmSeconds } from '../../src/core/speech.ts';
import { LOOPBACK_VOICE_CA, type BotPacket } from '../fake-discord/voice/loopback-voice-server.ts';
import { decodeBotSpeech, speechLevel } from '../fake-discord/voice/voice-audio.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { recordedSpeechPcm, wavPcm } from '../support/llm-stand-in/recorded-speech.ts';
import { textScript, type Script } from '../support/llm-stand-in/script.ts';
import { standInSpeechPcm, type TranscriptionCall } from '../support/llm-stand-in/speech-wire.ts';
import { botMessagesIn, botPings, startHarness, type BotHarness } from './support/bot-harness.ts';
import { commandsRegistered } from './support/slash-commands.ts';

const TEST_TIMEOUT_MS = 300_000;
const WAIT_MS = 90_000;
const QUESTION = 'What is the weather like today?';
const ANSWER = 'It is sunny and warm.';
const FRAME_BYTES = 960;
const BOB_ASKS = 'And tomorrow, will it rain, or will it be sunny again?';

/** What each member says: the recorded question, or a stand-in tone of a short phrase. */
const SPEECH = {
  question: recordedSpeechPcm(QUESTION) ?? new Uint8Array(),
  stop: standInSpeechPcm('Stop please.'),
  bob: standInSpeechPcm(BOB_ASKS),
  interrupt: standInSpeechPcm('Hold on, hold on, I have something to say.'),
};

/** The transcript of what the stand-in is sent: the phrase whose speech is closest in length. */
function transcriptOf(call: TranscriptionCall): string {
  const seconds = pcmSeconds(wavPcm(call.audio).byteLength);
  const phrases: [Uint8Array, string][] = [
    [SPEECH.question, QUESTION],
    [SPEECH.stop, 'Stop please.'],
    [SPEECH.bob, BOB_ASKS],
    [SPEECH.interrupt, 'Hold on, hold on, I have something to say.'],
  ];
  const distance = ([pcm]: [Uint8Array, string]) => Math.abs(seconds - pcmSeconds(pcm.byteLength));
  const [closest] = phrases.sort((a, b) => distance(a) - distance(b));
  return closest !== undefined && distance(closest) < 0.5 ? closest[1] : 'unintelligible';
}

/** Frames of 20 ms a text is spoken in (each sentence's last frame padded). */
function framesOf(...sentences: string[]): number {
  return sentences.reduce(
    (sum, sentence) => sum + Math.ceil(standInSpeechPcm(sentence).byteLength / FRAME_BYTES),
    0,
  );
}

interface VoiceWorld {
  guildId: string;
  lounge: string;
  alice: string;
  bob: string;
  carol: string;
}

describe('talking with the bot in a voice channel', { timeout: TEST_TIMEOUT_MS }, () => {
  let harness: BotHarness<VoiceWorld>;

  beforeAll(async () => {
    harness = await startHarness({
      env: {
        SPEECH_PROVIDER: 'openai',
        VOICE_CHANNELS: 'on',
        VOICE_SILENCE_MS: '500',
        NODE_EXTRA_CA_CERTS: LOOPBACK_VOICE_CA,
      },
      setup: (discord) => {
        const guild = discord.createGuild({ name: 'Voice' });
        const lounge = discord.createChannel({ guildId: guild.id, name: 'Lounge', kind: 'voice' });
        const ids = { guildId: guild.id, lounge: lounge.id, alice: '', bob: '', carol: '' };
        for (const name of ['alice', 'bob', 'carol'] as const) {
          ids[name] = discord.createUser({ username: name }).id;
          discord.addMember({ guildId: guild.id, userId: ids[name] });
        }
        return ids;
      },
    });
    harness.llm.handleSpeech({
      transcribe: (call) => ({ type: 'text', text: transcriptOf(call) }),
    });
    await commandsRegistered(harness.discord, harness.bot);
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    const logFile = process.env['VOICE_TEST_LOG_FILE'];
    if (logFile !== undefined && harness !== undefined) {
      writeFileSync(
        logFile,
        harness.bot
          .logs()
          .map((line) => line.text)
          .join('\n'),
      );
    }
    await harness?.dispose();
  });

  /** Whether the bot logged `msg` after the first `from` lines. */
  function loggedSince(from: number, msg: string): boolean {
    return harness.bot
      .logs()
      .slice(from)
      .some((line) => line.json?.['msg'] === msg);
  }

  /** The bot's packets on the guild's current voice server from `from` on. */
  function packetsSince(from: number): BotPacket[] {
    const server = harness.discord.voice.server(harness.world.guildId);
    return (server?.botPackets() ?? []).slice(from);
  }

  function packetCount(): number {
    return harness.discord.voice.server(harness.world.guildId)?.botPackets().length ?? 0;
  }

  /** Resolves once the bot has sent `count` voiced packets since `from`. */
  function voicedPackets(from: number, count: number): Promise<BotPacket[]> {
    const server = harness.discord.voice.server(harness.world.guildId)!;
    return server.until(
      () => {
        const voiced = packetsSince(from).filter((packet) => !packet.silence);
        return voiced.length >= count ? voiced : undefined;
      },
      WAIT_MS,
      `${count} voiced packets from the bot`,
    );
  }

  function speak(userId: string, speech: Uint8Array): Promise<number> {
    return harness.discord.voice.speak({ userId, guildId: harness.world.guildId, speech });
  }

  /** The next log line (from now on) with this `msg` and, when given, this turn `status`. */
  function nextLog(msg: string, status?: string) {
    const { bot } = harness;
    const from = bot.logs().length;
    return bot.waitForLog(
      (line) =>
        line.json?.['msg'] === msg &&
        (status === undefined || line.json['status'] === status) &&
        bot.logs().indexOf(line) >= from,
      { timeoutMs: WAIT_MS },
    );
  }

  function turnFinished(status?: string) {
    return nextLog('turn finished', status);
  }

  it('joins the voice channel its caller is in with /voice join, through the voice gateway, UDP and DAVE', async () => {
    const { discord, world } = harness;
    discord.voice.join({ userId: world.alice, channelId: world.lounge });
    const reply = await discord
      .invokeSlashCommand({
        command: 'voice',
        subcommand: 'join',
        userId: world.alice,
        channelId: world.lounge,
      })
      .waitForOriginal();
    expect(reply.content).toContain('**Lounge**');
    expect(((reply.flags ?? 0) & MessageFlags.Ephemeral) !== 0).toBe(false);
    expect(discord.voice.channelOf(world.guildId, discord.botUserId)).toBe(world.lounge);
    const server = discord.voice.server(world.guildId)!;
    const [session] = server.identified();
    expect(session?.grant.channelId).toBe(world.lounge);
    expect(session?.dave.maxProtocolVersion).toBeGreaterThanOrEqual(1);
    // The bot's own MLS key package (made by @snazzah/davey) reached the voice server.
    expect(session?.dave.keyPackage?.readUInt16BE(2)).toBe(2);
    const status = await discord
      .invokeSlashCommand({
        command: 'voice',
        subcommand: 'status',
        userId: world.bob,
        channelId: world.lounge,
      })
      .waitForOriginal();
    expect(status.content).toContain('**Lounge**');
  });

  it('answers a spoken question in speech, its first sentence heard while the model still writes', async () => {
    const { discord, llm, world } = harness;
    const gate = createGate();
    const script: Script = {
      steps: [
        { type: 'text', text: `${ANSWER} ` },
        { type: 'hold', gate },
        { type: 'text', text: 'Have a nice day.' },
        { type: 'usage', inputTokens: 10, outputTokens: 8 },
        { type: 'finish', reason: 'stop' },
      ],
    };
    llm.enqueue(script);
    const from = packetCount();
    const firstSentence = framesOf(ANSWER);
    await speak(world.alice, SPEECH.question);
    // The whole first sentence is spoken while the model is held before its second.
    const heard = await voicedPackets(from, firstSentence);
    expect(gate.released).toBe(false);
    const request = llm.requests.at(-1);
    expect(request?.lastUserText).toContain(QUESTION);
    const upload = llm.speechCalls.find(
      (call): call is TranscriptionCall => call.kind === 'transcription',
    );
    expect(upload).toMatchObject({ mediaType: 'audio/wav', filename: 'utterance.wav' });
    gate.release();
    await turnFinished('complete');
    const voiced = await voicedPackets(from, framesOf(ANSWER, 'Have a nice day.'));
    expect(voiced).toHaveLength(framesOf(ANSWER, 'Have a nice day.'));
    // Decoded back: the recorded answer, as long as the stand-in spoke it, and audible.
    const decoded = decodeBotSpeech(heard.slice(0, firstSentence).map((packet) => packet.payload));
    const spoken = pcmSeconds(standInSpeechPcm(ANSWER).byteLength);
    expect(Math.abs(pcmSeconds(decoded.byteLength) - spoken) / spoken).toBeLessThan(0.05);
    expect(speechLevel(decoded)).toBeGreaterThan(0.02);
    // The exchange's text is in the voice channel's text chat too.
    const written = botMessagesIn(discord, world.lounge).map((message) => message.content);
    expect(written.join('\n')).toContain(ANSWER);
    expect(botPings(discord)).toEqual([]);
  });

  it('stops the model when the member it answers says "stop", and says so in speech', async () => {
    const { llm, world } = harness;
    const gate = createGate();
    llm.enqueue(
      {
        steps: [
          { type: 'hold', gate },
          { type: 'text', text: 'Never spoken.' },
        ],
      },
      textScript('Okay, I will stop.'),
    );
    const requests = llm.requests.length;
    await speak(world.alice, SPEECH.question);
    await llm.waitForRequest(requests + 1);
    const stopped = turnFinished('stopped');
    const heardStop = nextLog('stopped by a member speaking');
    const acknowledged = nextLog('acknowledged a stop');
    const from = packetCount();
    await speak(world.alice, SPEECH.stop);
    await heardStop;
    await stopped;
    expect(llm.requests[requests]?.clientClosed).toBe(true);
    await acknowledged;
    // The in-persona acknowledgement is spoken too.
    await voicedPackets(from, framesOf('Okay, I will stop.'));
    gate.release();
  });

  it('falls silent when the member it answers talks over it, and not when another member does', async () => {
    const { discord, llm, world, bot } = harness;
    discord.voice.join({ userId: world.carol, channelId: world.lounge });
    const sentences = Array.from(
      { length: 12 },
      (_, index) => `This is sentence number ${index + 1}.`,
    );
    // The model is still writing when she talks over it (a delta every 500 ms).
    llm.enqueue(
      { ...textScript(...sentences.map((sentence) => `${sentence} `)), eventDelayMs: 500 },
      textScript('Go ahead.'),
    );
    const from = packetCount();
    const logsFrom = bot.logs().length;
    await speak(world.alice, SPEECH.question);
    await voicedPackets(from, 25);
    // Carol did not ask: her talking over the reply stops nothing.
    const carolHeard = nextLog('a spoken stop found nothing to stop');
    await speak(world.carol, SPEECH.stop);
    await carolHeard;
    expect(loggedSince(logsFrom, 'a member talked over the bot: stopped')).toBe(false);
    const stopped = turnFinished('stopped');
    const talkedOver = nextLog('a member talked over the bot: stopped');
    const answeredAfter = nextLog('spoken request accepted');
    const interrupting = speak(world.alice, SPEECH.interrupt);
    await talkedOver;
    const stoppedAt = Date.now();
    await stopped;
    await interrupting;
    // Silent within a frame or two of the stop (a ceiling for a busy machine: 3 s).
    await answeredAfter;
    const voicedAfterStop = packetsSince(from).filter(
      (packet) => !packet.silence && packet.at > stoppedAt + 3_000 && packet.at < Date.now() - 1,
    );
    expect(voicedAfterStop).toEqual([]);
    expect(packetsSince(from).filter((packet) => !packet.silence).length).toBeLessThan(
      framesOf(...sentences),
    );
    discord.voice.leave({ userId: world.carol, guildId: world.guildId });
    // Her interruption was heard as a request of its own, and answered.
    await turnFinished('complete');
  });

  it('lets two members take turns, each answered with what the other said in context', async () => {
    const { discord, llm, world } = harness;
    discord.voice.join({ userId: world.bob, channelId: world.lounge });
    llm.enqueue(textScript(`${ANSWER} `), textScript('Tomorrow it may rain.'));
    const requests = llm.requests.length;
    const finished = turnFinished('complete');
    await speak(world.alice, SPEECH.question);
    await finished;
    const second = turnFinished('complete');
    await speak(world.bob, SPEECH.bob);
    await second;
    const sent = JSON.stringify(llm.requests[requests + 1]?.body);
    expect(sent).toContain(BOB_ASKS);
    expect(sent).toContain(QUESTION);
    expect(sent).toContain(ANSWER);
  });

  it('keeps speaking through a voice-server move in the middle of a reply', async () => {
    const { discord, llm, world } = harness;
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: `${ANSWER} ` },
        { type: 'hold', gate },
        { type: 'text', text: 'Have a nice day.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const from = packetCount();
    await speak(world.alice, SPEECH.question);
    await voicedPackets(from, 5);
    const moved = await discord.voice.moveServer(world.guildId);
    await moved.until(
      () => (moved.connected(world.guildId) ? true : undefined),
      WAIT_MS,
      'the bot on the new server',
    );
    gate.release();
    await moved.until(
      () =>
        moved.botPackets().filter((packet) => !packet.silence).length >=
        framesOf('Have a nice day.')
          ? true
          : undefined,
      WAIT_MS,
      'the rest of the reply on the new voice server',
    );
    await turnFinished('complete');
  });

  it('rejoins when its voice session is dropped for good, and answers again', async () => {
    const { discord, llm, world } = harness;
    const server = discord.voice.server(world.guildId)!;
    const identifies = server.identified().length;
    // 4006 "session no longer valid": no resume; the bot must join again (op 4 → a new session).
    server.closeConnections(4006);
    await server.until(
      () =>
        server.identified().length > identifies && server.connected(world.guildId)
          ? true
          : undefined,
      WAIT_MS,
      'the bot identifying again',
    );
    llm.enqueue(textScript(`${ANSWER} `));
    const from = packetCount();
    const finished = turnFinished('complete');
    await speak(world.alice, SPEECH.question);
    await finished;
    expect(packetsSince(from).filter((packet) => !packet.silence).length).toBe(framesOf(ANSWER));
  });

  it('leaves with /voice leave, and on its own when left alone', async () => {
    const { discord, world } = harness;
    for (const member of [world.alice, world.bob]) {
      if (discord.voice.channelOf(world.guildId, member) !== world.lounge) {
        discord.voice.join({ userId: member, channelId: world.lounge });
      }
    }
    if (discord.voice.channelOf(world.guildId, world.carol) !== undefined) {
      discord.voice.leave({ userId: world.carol, guildId: world.guildId });
    }
    const left = await discord
      .invokeSlashCommand({
        command: 'voice',
        subcommand: 'leave',
        userId: world.bob,
        channelId: world.lounge,
      })
      .waitForOriginal();
    expect(left.content).toBe('I left the voice channel.');
    await discord.voice.until(
      () =>
        discord.voice.channelOf(world.guildId, discord.botUserId) === undefined ? true : undefined,
      WAIT_MS,
    );
    await discord
      .invokeSlashCommand({
        command: 'voice',
        subcommand: 'join',
        userId: world.alice,
        channelId: world.lounge,
      })
      .waitForOriginal();
    await discord.voice.until(
      () =>
        discord.voice.channelOf(world.guildId, discord.botUserId) === world.lounge
          ? true
          : undefined,
      WAIT_MS,
    );
    discord.voice.leave({ userId: world.alice, guildId: world.guildId });
    discord.voice.leave({ userId: world.bob, guildId: world.guildId });
    await discord.voice.until(
      () =>
        discord.voice.channelOf(world.guildId, discord.botUserId) === undefined ? true : undefined,
      WAIT_MS,
      'the bot leaving an empty channel',
    );
    expect(botPings(discord)).toEqual([]);
  });
});

describe('following members into voice (VOICE_AUTO_JOIN)', { timeout: TEST_TIMEOUT_MS }, () => {
  let harness: BotHarness<VoiceWorld & { general: string; quiet: string }>;

  beforeAll(async () => {
    harness = await startHarness({
      env: {
        SPEECH_PROVIDER: 'openai',
        VOICE_CHANNELS: 'on',
        VOICE_AUTO_JOIN: 'on',
        NODE_EXTRA_CA_CERTS: LOOPBACK_VOICE_CA,
      },
      setup: (discord) => {
        const guild = discord.createGuild({ name: 'Voice' });
        const ids = {
          guildId: guild.id,
          general: discord.createChannel({ guildId: guild.id, name: 'general' }).id,
          lounge: discord.createChannel({ guildId: guild.id, name: 'Lounge', kind: 'voice' }).id,
          quiet: discord.createChannel({ guildId: guild.id, name: 'Quiet', kind: 'voice' }).id,
          alice: '',
          bob: '',
          carol: '',
        };
        for (const name of ['alice', 'bob', 'carol'] as const) {
          ids[name] = discord.createUser({ username: name }).id;
          discord.addMember({ guildId: guild.id, userId: ids[name] });
        }
        return ids;
      },
    });
    await commandsRegistered(harness.discord, harness.bot);
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await harness?.dispose();
  });

  it('joins the voice channel of a member who just talked with it, not of one who did not, and leaves when they go', async () => {
    const { discord, llm, world } = harness;
    llm.enqueue(textScript('Hi alice!'));
    const reply = discord.waits.message({ channelId: world.general, authorId: discord.botUserId });
    discord.postMessage({
      authorId: world.alice,
      channelId: world.general,
      content: `<@${discord.botUserId}> hello`,
    });
    await reply;
    discord.voice.join({ userId: world.bob, channelId: world.quiet });
    discord.voice.join({ userId: world.alice, channelId: world.lounge });
    await discord.voice.until(
      () =>
        discord.voice.channelOf(world.guildId, discord.botUserId) === world.lounge
          ? true
          : undefined,
      WAIT_MS,
      'the bot following alice',
    );
    expect(discord.voice.botRequests().map((request) => request.channelId)).toEqual([world.lounge]);
    discord.voice.leave({ userId: world.alice, guildId: world.guildId });
    await discord.voice.until(
      () =>
        discord.voice.channelOf(world.guildId, discord.botUserId) === undefined ? true : undefined,
      WAIT_MS,
      'the bot leaving with her',
    );
  });
});
