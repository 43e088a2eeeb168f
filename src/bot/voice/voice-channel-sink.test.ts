import { describe, expect, it } from 'vitest';
import type { DeliveryResult, DeliverySink } from '../../stream/reply/delivery-sink.ts';
import { SpeechQueue } from '../../stream/speech/speech-queue.ts';
import { SPOKEN_CHARACTERS_PER_REPLY } from '../delivery/voice-reply.ts';
import { VoiceChannelSink } from './voice-channel-sink.ts';

/** A text sink that remembers what it was handed. */
class RecordingSink implements DeliverySink {
  readonly calls: string[] = [];
  pushMessage(chunk: string): void {
    this.calls.push(`push:${chunk}`);
  }
  updateCurrent(content: string): void {
    this.calls.push(`update:${content}`);
  }
  sealCurrent(): void {
    this.calls.push('seal');
  }
  setTyping(): void {}
  setStatus(): void {}
  discardPending(): void {
    this.calls.push('discard');
  }
  endOfReply(): void {}
  flush(): Promise<DeliveryResult> {
    return Promise.resolve({ messageIds: ['m1'], failure: undefined });
  }
}

function sinkWith(text: DeliverySink | undefined) {
  const said: string[] = [];
  const queue = new SpeechQueue({
    synthesize: (sentence) => {
      said.push(sentence);
      return (async function* () {
        await Promise.resolve();
        yield new Uint8Array(4);
      })();
    },
    frameBytes: 4,
    signal: new AbortController().signal,
  });
  let spoken = -1;
  const sink = new VoiceChannelSink({
    text,
    queue,
    played: Promise.resolve(),
    spoken: (characters) => {
      spoken = characters;
      return Promise.resolve();
    },
  });
  return { sink, queue, said, spoken: () => spoken };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('VoiceChannelSink', () => {
  it('speaks each sentence of the streaming text as soon as it is complete', async () => {
    const { sink, said } = sinkWith(undefined);
    sink.hearText('It is sunny');
    await settle();
    expect(said).toEqual([]);
    sink.hearText(' and warm. Take');
    await settle();
    expect(said).toEqual(['It is sunny and warm.']);
  });

  it('posts the text to the text chat but speaks only what it heard as it streamed', async () => {
    const text = new RecordingSink();
    const { sink, said, spoken } = sinkWith(text);
    sink.pushMessage('Hello there.');
    sink.hearText('Hello there.');
    const delivered = await sink.flush();
    await settle();
    expect(text.calls).toEqual(['push:Hello there.']);
    expect(said).toEqual(['Hello there.']);
    expect(delivered.messageIds).toEqual(['m1']);
    expect(spoken()).toBe('Hello there.'.length);
  });

  it('answers with no messages when only speech answers', async () => {
    const { sink } = sinkWith(undefined);
    sink.hearText('Only spoken.');
    expect(await sink.flush()).toEqual({ messageIds: [], failure: undefined });
  });

  it('drops what is not spoken yet when the reply is stopped', () => {
    const text = new RecordingSink();
    const { sink, queue } = sinkWith(text);
    sink.hearText('One. Two. ');
    sink.discardPending();
    expect(text.calls).toEqual(['discard']);
    expect(queue.read()).toBe('done');
  });

  it('leaves a reply past about five minutes of speech to the text chat, without a gap', async () => {
    const { sink, said, queue } = sinkWith(undefined);
    // Streamed a word at a time, as a model writes: long runs are cut at 400 characters.
    for (let word = 0; word < SPOKEN_CHARACTERS_PER_REPLY / 5 + 100; word += 1)
      sink.hearText('word ');
    sink.hearText('end. Short one. ');
    const flushed = sink.flush();
    // Played to the end: every sentence the sink queued is synthesized.
    while (queue.read() !== 'done') await settle();
    await flushed;
    expect(said.length).toBeGreaterThan(5);
    expect(said.join(' ').length).toBeLessThanOrEqual(SPOKEN_CHARACTERS_PER_REPLY);
    expect(said.some((sentence) => sentence.includes('Short one'))).toBe(false);
  });
});
