import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { ProviderError } from '../../core/errors.ts';
import { SPEECH_PCM, type SpeechService, type TextToSpeech } from '../../core/speech.ts';
import { readOggOpus } from '../../providers/speech/ogg-opus-file.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { RecordingTarget } from '../../../tests/support/recording-target.ts';
import { DeliveryPort } from './delivery-port.ts';
import { allowedMentionsFor } from './message-target.ts';
import { VoiceReply } from './voice-reply.ts';

/** Speaks each character as 50 ms of tone; fails on a sentence containing "FAIL". */
function toneSpeech(spoken: string[]): TextToSpeech {
  return {
    provider: 'openai',
    async *synthesize(request) {
      await Promise.resolve();
      if (request.text.includes('FAIL'))
        throw new ProviderError({ kind: 'overloaded', message: 'busy', provider: 'openai' });
      spoken.push(request.text);
      const samples = Math.round(request.text.length * 0.05 * SPEECH_PCM.sampleRate);
      const pcm = new Uint8Array(samples * 2);
      const view = new DataView(pcm.buffer);
      for (let index = 0; index < samples; index += 1)
        view.setInt16(index * 2, Math.round(8000 * Math.sin(index / 9)), true);
      // In two pieces, as a stream arrives.
      yield pcm.subarray(0, 4_800);
      yield pcm.subarray(4_800);
    },
  };
}

function setup(maxSecondsPerMessage: number, failureNote?: string, maxCharacters?: number) {
  const target = new RecordingTarget();
  const delivery = new DeliveryPort({ clock: new ManualClock(), logger: silentLogger });
  const spoken: string[] = [];
  const speech: SpeechService = {
    provider: 'openai',
    server: undefined,
    speechToText: {
      provider: 'openai',
      transcribe: () => Promise.resolve({ text: '' }),
      checkModel: () => Promise.resolve(),
    },
    textToSpeech: toneSpeech(spoken),
    transcriptionModel: 'whisper-1',
    speechModel: 'tts-1',
    defaultVoice: 'alloy',
    maxVoiceMessageSeconds: 60,
    transcriptionCost: () => 0,
    speechCost: () => 0,
  };
  const reply = new VoiceReply({
    writer: delivery.to(target),
    speech,
    voice: 'nova',
    replyTo: 'member-message',
    allowedMentions: allowedMentionsFor({ allowUserMentions: false }),
    logger: silentLogger,
    signal: new AbortController().signal,
    maxSecondsPerMessage,
    ...(failureNote === undefined ? {} : { failureNote }),
    ...(maxCharacters === undefined ? {} : { maxCharacters }),
  });
  const voiceMessages = () =>
    target.writes.flatMap((write) => (write.kind === 'send' ? [write.message] : []));
  return { reply, spoken, voiceMessages };
}

describe('VoiceReply', () => {
  it('posts one voice message for a short reply, replying to the member, with explicit allowed mentions', async () => {
    const { reply, voiceMessages } = setup(60);
    reply.say('Hello there.');
    reply.say('How are you?');
    const result = await reply.finish();
    const [message] = voiceMessages();
    expect(voiceMessages()).toHaveLength(1);
    expect(message).toMatchObject({
      content: '',
      replyTo: 'member-message',
      allowedMentions: { parse: [], repliedUser: false },
    });
    const seconds = ('Hello there.'.length + 'How are you?'.length) * 0.05;
    expect(message?.voice?.durationSeconds).toBeCloseTo(seconds, 2);
    expect(readOggOpus(message?.voice?.ogg ?? new Uint8Array()).durationSeconds).toBeCloseTo(
      seconds,
      2,
    );
    expect(result).toMatchObject({ messageIds: ['1000'], characters: 24, failure: undefined });
    expect(result.seconds).toBeCloseTo(seconds, 2);
  });

  it('cuts a long reply into several voice messages at sentence boundaries', async () => {
    const { reply, voiceMessages } = setup(1);
    // 0.6 s each: a message is closed once it reaches 1 s, before the next sentence.
    for (const sentence of ['One two three', 'Four five six', 'Seven eight n', 'Ten eleven tw'])
      reply.say(sentence);
    await reply.finish();
    const durations = voiceMessages().map((message) => message.voice?.durationSeconds ?? 0);
    expect(durations).toHaveLength(2);
    durations.forEach((duration) => expect(duration).toBeCloseTo(1.3, 2));
    // Only the first replies to the member; the rest follow it.
    expect(voiceMessages().map((message) => message.replyTo)).toEqual([
      'member-message',
      undefined,
    ]);
  });

  it('posts what was spoken before a speech failure, then a small note saying so', async () => {
    const { reply, spoken, voiceMessages } = setup(60, 'No voice this time.');
    reply.say('First sentence.');
    reply.say('Then FAIL.');
    reply.say('Never spoken.');
    const result = await reply.finish();
    expect(spoken).toEqual(['First sentence.']);
    const [voice, note] = voiceMessages();
    expect(voiceMessages()).toHaveLength(2);
    expect(voice?.voice).toBeDefined();
    expect(note).toMatchObject({
      content: '-# No voice this time.',
      replyTo: 'member-message',
      allowedMentions: { parse: [] },
    });
    expect(note?.voice).toBeUndefined();
    expect(result.failure).toMatchObject({ kind: 'overloaded' });
  });

  it('speaks a long reply only up to its character budget, whole sentences', async () => {
    const { reply, spoken } = setup(60, undefined, 30);
    for (const sentence of ['Twelve chars', 'Twelve chars', 'Twelve chars', 'Two'])
      reply.say(sentence);
    const result = await reply.finish();
    expect(spoken).toEqual(['Twelve chars', 'Twelve chars']);
    expect(result.characters).toBe(24);
  });

  it('posts nothing after a stop', async () => {
    const { reply, voiceMessages } = setup(60);
    reply.say('Something long to say.');
    reply.cancel();
    const result = await reply.finish();
    expect(voiceMessages()).toEqual([]);
    expect(result.messageIds).toEqual([]);
  });
});
