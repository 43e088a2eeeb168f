/**
 * Voice messages through the real bot process, the loopback Discord (the real discord.js client
 * on the bot's side) and the stand-in's OpenAI speech routes: a member's voice message is
 * transcribed and answered like text; too long a recording is refused with the limit; a
 * provider failure is the usual notice with Retry.
 */
import { MessageFlags, type APIMessage } from 'discord-api-types/v10';
import OpusScript from 'opusscript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recentTurns } from '../../src/db/turn-repository.ts';
import { usageSummary } from '../../src/db/usage-repository.ts';
import { pcmSeconds } from '../../src/core/speech.ts';
import { OggOpusEncoder } from '../../src/providers/speech/ogg-opus-encoder.ts';
import { readOggOpus } from '../../src/providers/speech/ogg-opus-file.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { recordedSpeechPcm } from '../support/llm-stand-in/recorded-speech.ts';
import {
  standInSpeechPcm,
  type SpeechCall,
  type TranscriptionCall,
} from '../support/llm-stand-in/speech-wire.ts';
import {
  botMessagesIn,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';
import { commandsRegistered } from './support/slash-commands.ts';

const TEST_TIMEOUT_MS = 300_000;
const MAX_VOICE_SECONDS = 30;

/**
 * A member's recording as the Discord client posts it: OGG/Opus with length and waveform, encoded
 * from real speech for the recorded texts (tests/fixtures/speech), else from the synthetic tone.
 */
function memberVoiceMessage(text: string, durationSecs?: number) {
  const encoder = new OggOpusEncoder();
  encoder.push(standInSpeechPcm(text));
  const voice = encoder.finish();
  return {
    filename: 'voice-message.ogg',
    contentType: 'audio/ogg',
    data: Buffer.from(voice.ogg),
    durationSecs: durationSecs ?? voice.durationSeconds,
    waveform: Buffer.from(voice.waveform).toString('base64'),
  };
}

/** Downloads a voice message's file and decodes every Opus packet: the seconds really heard. */
async function decodedSeconds(url: string): Promise<{ fileSeconds: number; heardSeconds: number }> {
  const file = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const ogg = readOggOpus(file);
  const decoder = new OpusScript(48_000, 1);
  try {
    const samples = ogg.audioPackets.reduce(
      (sum, packet) => sum + decoder.decode(Buffer.from(packet)).byteLength / 2,
      0,
    );
    return { fileSeconds: ogg.durationSeconds, heardSeconds: samples / 48_000 };
  } finally {
    decoder.delete();
  }
}

function isVoiceMessage(message: APIMessage): boolean {
  return ((message.flags ?? 0) & MessageFlags.IsVoiceMessage) !== 0;
}

describe('voice messages', { timeout: TEST_TIMEOUT_MS }, () => {
  let harness: BotHarness<{ alice: string; bob: string; carol: string; dave: string }>;

  beforeAll(async () => {
    harness = await startHarness({
      env: {
        SPEECH_PROVIDER: 'openai',
        VOICE_MESSAGE_MAX_SECONDS: String(MAX_VOICE_SECONDS),
      },
      setup: (discord) => ({
        alice: discord.createUser({ username: 'alice' }).id,
        bob: discord.createUser({ username: 'bob' }).id,
        carol: discord.createUser({ username: 'carol' }).id,
        dave: discord.createUser({ username: 'dave' }).id,
      }),
    });
    await commandsRegistered(harness.discord, harness.bot);
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await harness?.dispose();
  });

  it("transcribes a member's voice message in a DM and answers it like text", async () => {
    const { discord, llm, world } = harness;
    const dm = discord.openDirectMessage(world.alice);
    llm.handleSpeech({
      transcribe: () => ({ type: 'text', text: 'What is the weather like today?' }),
    });
    llm.enqueue(textScript('It is sunny and warm.'));
    const reply = discord.waits.message({ channelId: dm.id, authorId: discord.botUserId });
    const recording = memberVoiceMessage('What is the weather like today?');
    const spoken = pcmSeconds(
      recordedSpeechPcm('What is the weather like today?')?.byteLength ?? 0,
    );
    expect(spoken).toBeGreaterThan(1);
    expect(Math.abs(recording.durationSecs - spoken) / spoken).toBeLessThan(0.05);
    const trigger = discord.postMessage({
      authorId: world.alice,
      channelId: dm.id,
      flags: MessageFlags.IsVoiceMessage,
      attachments: [recording],
    });
    const answer = await reply;
    expect(answer.content).toBe('It is sunny and warm.');
    expect(answer.message_reference?.message_id).toBe(trigger.id);

    const upload = llm.speechCalls.find(
      (call): call is TranscriptionCall => call.kind === 'transcription',
    );
    expect(upload).toMatchObject({ filename: 'voice-message.ogg', mediaType: 'audio/ogg' });
    expect(Buffer.from(upload?.audio ?? []).equals(recording.data)).toBe(true);
    expect(llm.requests.at(-1)?.lastUserText).toContain('What is the weather like today?');
  });

  it('refuses a recording over the limit, saying the limit, without sending it anywhere', async () => {
    const { discord, llm, world } = harness;
    const dm = discord.openDirectMessage(world.bob);
    const calls = llm.speechCalls.length;
    const requests = llm.requests.length;
    const notice = discord.waits.message({ channelId: dm.id, authorId: discord.botUserId });
    discord.postMessage({
      authorId: world.bob,
      channelId: dm.id,
      flags: MessageFlags.IsVoiceMessage,
      attachments: [memberVoiceMessage('a long story', 95)],
    });
    const refusal = await notice;
    expect(refusal.content).toContain(`at most ${MAX_VOICE_SECONDS} s`);
    expect(refusal.content).toContain('95 s');
    expect(llm.speechCalls.length).toBe(calls);
    expect(llm.requests.length).toBe(requests);
  });

  it('tells of a speech provider failure with Retry, and Retry answers once it works', async () => {
    const { discord, llm, world } = harness;
    const dm = discord.openDirectMessage(world.carol);
    let works = false;
    llm.handleSpeech({
      transcribe: () =>
        works ? { type: 'text', text: 'Are you there?' } : { type: 'fail', kind: 'auth' },
    });
    const notice = discord.waits.message({
      channelId: dm.id,
      authorId: discord.botUserId,
      where: (message) => (message.components?.length ?? 0) > 0,
    });
    const trigger = discord.postMessage({
      authorId: world.carol,
      channelId: dm.id,
      flags: MessageFlags.IsVoiceMessage,
      attachments: [memberVoiceMessage('are you there')],
    });
    const failure = await notice;
    expect(failure.content).toContain('/config apikey');
    expect(failure.content).toMatch(/Incident `[0-9a-f]{8}`/);
    expect(JSON.stringify(failure.components)).toContain(`retry:${trigger.id}`);

    works = true;
    llm.enqueue(textScript('Yes, I am here.'));
    const answer = discord.waits.message({
      channelId: dm.id,
      authorId: discord.botUserId,
      where: (message) => message.content === 'Yes, I am here.',
    });
    discord.pressButton({
      userId: world.carol,
      messageId: failure.id,
      customId: `retry:${trigger.id}`,
    });
    expect((await answer).message_reference?.message_id).toBe(trigger.id);
  });

  it('answers in a voice message when asked: the reply spoken sentence by sentence in the persona voice', async () => {
    const { discord, llm, world } = harness;
    const dm = discord.openDirectMessage(world.dave);
    const configured = await discord
      .invokeSlashCommand({
        userId: world.dave,
        channelId: dm.id,
        command: 'config',
        subcommand: 'voice',
        options: { replies: 'asked', voice: 'nova' },
      })
      .waitForOriginal();
    expect(configured.content).toContain('when asked');
    expect(configured.content).toContain('nova');

    llm.handleSpeech({
      transcribe: () => ({ type: 'text', text: 'What is the weather like today?' }),
    });
    const story =
      'It is sunny and warm. Once upon a time, a cat found a boat. It sailed to the moon! The end.';
    llm.enqueue(textScript(story));
    const calls = llm.speechCalls.length;
    const text = discord.waits.message({
      channelId: dm.id,
      authorId: discord.botUserId,
      where: (message) => !isVoiceMessage(message),
    });
    const spoken = discord.waits.message({
      channelId: dm.id,
      authorId: discord.botUserId,
      where: isVoiceMessage,
    });
    const trigger = discord.postMessage({
      authorId: world.dave,
      channelId: dm.id,
      flags: MessageFlags.IsVoiceMessage,
      attachments: [memberVoiceMessage('What is the weather like today?')],
    });
    expect((await text).content).toBe(story);
    const voice = await spoken;
    expect(voice.content).toBe('');
    expect(voice.message_reference?.message_id).toBe(trigger.id);
    const [recording] = voice.attachments;
    expect(voice.attachments).toHaveLength(1);
    expect(recording?.content_type).toBe('audio/ogg');
    expect(Buffer.from(recording?.waveform ?? '', 'base64').length).toBeGreaterThan(10);

    const syntheses = llm.speechCalls
      .slice(calls)
      .filter((call): call is SpeechCall => call.kind === 'speech');
    expect(syntheses.map((call) => call.text)).toEqual([
      'It is sunny and warm.',
      'Once upon a time, a cat found a boat.',
      'It sailed to the moon!',
      'The end.',
    ]);
    expect(syntheses.every((call) => call.voice === 'nova' && call.responseFormat === 'pcm')).toBe(
      true,
    );
    const synthesized = syntheses.reduce(
      (sum, call) => sum + pcmSeconds(standInSpeechPcm(call.text).byteLength),
      0,
    );
    expect(Math.abs((recording?.duration_secs ?? 0) - synthesized) / synthesized).toBeLessThan(
      0.05,
    );
    const decoded = await decodedSeconds(recording?.url ?? '');
    expect(Math.abs(decoded.fileSeconds - synthesized) / synthesized).toBeLessThan(0.05);
    expect(Math.abs(decoded.heardSeconds - synthesized) / synthesized).toBeLessThan(0.05);
  });

  it('does not speak when not asked', async () => {
    const { discord, llm, world, bot } = harness;
    const dm = discord.openDirectMessage(world.dave);
    llm.enqueue(textScript('Just text.'));
    const calls = llm.speechCalls.length;
    const trigger = discord.postMessage({ authorId: world.dave, channelId: dm.id, content: 'hi' });
    await waitForTurn(bot, trigger.id);
    expect(llm.speechCalls.length).toBe(calls);
    expect(botMessagesIn(discord, dm.id).filter(isVoiceMessage)).toHaveLength(1);
  });

  it('keeps the transcript as the turn text in the record', async () => {
    const { bot, world, discord } = harness;
    expect(await bot.stop()).toEqual({ code: 0, signal: null });
    await harness.withDatabase(async (db) => {
      const turns = await recentTurns(db, discord.openDirectMessage(world.alice).id, {
        limit: 10,
        role: 'user',
      });
      expect(turns.map((turn) => turn.content)).toEqual(['What is the weather like today?']);
      // Speech is in the usage: seconds heard and characters spoken, per speech model.
      const usage = await usageSummary(db, {
        scopeId: world.dave,
        fromDay: '2000-01-01',
        toDay: '2100-01-01',
      });
      const byModel = Object.fromEntries(usage.byDayAndModel.map((row) => [row.model, row]));
      expect(byModel['whisper-1']?.speechSeconds).toBeGreaterThan(0.5);
      expect(byModel['gpt-4o-mini-tts']?.speechCharacters).toBe(
        'It is sunny and warm.Once upon a time, a cat found a boat.It sailed to the moon!The end.'
          .length,
      );
    });
  });
});

describe('voice messages with Gemini speech', { timeout: TEST_TIMEOUT_MS }, () => {
  let harness: BotHarness<{ erin: string }>;

  beforeAll(async () => {
    harness = await startHarness({
      env: { SPEECH_PROVIDER: 'google', SPEECH_API_KEY: 'gemini-speech-key' },
      envFor: (llm) => ({ SPEECH_BASE_URL: llm.geminiBaseUrl }),
      setup: (discord) => ({ erin: discord.createUser({ username: 'erin' }).id }),
    });
    await commandsRegistered(harness.discord, harness.bot);
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await harness?.dispose();
  });

  it('hears a voice message through audio understanding and answers in a Gemini voice', async () => {
    const { discord, llm, world } = harness;
    const dm = discord.openDirectMessage(world.erin);
    await discord
      .invokeSlashCommand({
        userId: world.erin,
        channelId: dm.id,
        command: 'config',
        subcommand: 'voice',
        options: { replies: 'always', voice: 'Puck' },
      })
      .waitForOriginal();
    llm.handleSpeech({ transcribe: () => ({ type: 'text', text: '明日の天気は？' }) });
    llm.enqueue(textScript('晴れです。'));
    const spoken = discord.waits.message({
      channelId: dm.id,
      authorId: discord.botUserId,
      where: isVoiceMessage,
    });
    discord.postMessage({
      authorId: world.erin,
      channelId: dm.id,
      flags: MessageFlags.IsVoiceMessage,
      attachments: [memberVoiceMessage('ashita no tenki wa')],
    });
    const voice = await spoken;
    const [heard, said] = llm.speechCalls;
    expect(heard).toMatchObject({
      kind: 'transcription',
      model: 'gemini-2.5-flash',
      mediaType: 'audio/ogg',
      apiKey: 'gemini-speech-key',
    });
    expect(said).toMatchObject({
      kind: 'speech',
      model: 'gemini-2.5-flash-preview-tts',
      voice: 'Puck',
      text: '晴れです。',
    });
    expect(llm.requests.at(-1)?.lastUserText).toContain('明日の天気は？');
    // Real speech (espeak-ng), not the tone: the stand-in spoke the recording of this text.
    const synthesized = pcmSeconds(recordedSpeechPcm('晴れです。')?.byteLength ?? 0);
    expect(synthesized).toBeGreaterThan(0.5);
    const decoded = await decodedSeconds(voice.attachments[0]?.url ?? '');
    expect(Math.abs(decoded.heardSeconds - synthesized) / synthesized).toBeLessThan(0.05);
  });

  it('/doctor looks up both speech models on the speech server', async () => {
    const { discord, llm, world } = harness;
    const dm = discord.openDirectMessage(world.erin);
    const report = await discord
      .invokeSlashCommand({ userId: world.erin, channelId: dm.id, command: 'doctor' })
      .waitForOriginal();
    const speech = report.embeds?.[0]?.fields?.find(
      (field) => field.name === 'Speech (voice messages)',
    );
    const server = new URL(llm.geminiBaseUrl).host;
    expect(speech?.value).toContain(`hearing: \`gemini-2.5-flash\` on ${server}`);
    expect(speech?.value).toContain(`speaking: \`gemini-2.5-flash-preview-tts\` on ${server}`);
  });
});
