import { describe, expect, it } from 'vitest';
import { SpeechQueue, type SpeechRead } from './speech-queue.ts';

/** A synthesis the test releases chunk by chunk: each sentence's audio is its bytes repeated. */
class ScriptedSynthesis {
  readonly started: string[] = [];
  readonly #feeds = new Map<string, { push(chunk: Uint8Array | null): void }>();

  synthesize = (sentence: string, signal: AbortSignal): AsyncIterable<Uint8Array> => {
    this.started.push(sentence);
    const chunks: (Uint8Array | null)[] = [];
    let notify: (() => void) | undefined;
    this.#feeds.set(sentence, {
      push: (chunk) => {
        chunks.push(chunk);
        notify?.();
      },
    });
    return {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (signal.aborted) return;
          const chunk = chunks.shift();
          if (chunk === null) return;
          if (chunk !== undefined) {
            yield chunk;
            continue;
          }
          await new Promise<void>((resolve) => (notify = resolve));
        }
      },
    };
  };

  feed(sentence: string, bytes: number, fill: number): void {
    this.#feeds.get(sentence)?.push(new Uint8Array(bytes).fill(fill));
  }

  finish(sentence: string): void {
    this.#feeds.get(sentence)?.push(null);
  }
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function readAll(queue: SpeechQueue): SpeechRead[] {
  const reads: SpeechRead[] = [];
  for (;;) {
    const read = queue.read();
    reads.push(read);
    if (typeof read === 'string') return reads;
  }
}

describe('SpeechQueue', () => {
  it('plays the first sentence as its first chunk arrives, before its synthesis ends', async () => {
    const synthesis = new ScriptedSynthesis();
    const queue = new SpeechQueue({
      ...synthesis,
      frameBytes: 4,
      signal: new AbortController().signal,
    });
    queue.say('One.');
    expect(queue.read()).toBe('waiting');
    synthesis.feed('One.', 8, 1);
    await settle();
    expect(readAll(queue)).toEqual([
      new Uint8Array(4).fill(1),
      new Uint8Array(4).fill(1),
      'waiting',
    ]);
  });

  it('synthesizes the next sentence while the current one plays, so no gap comes between them', async () => {
    const synthesis = new ScriptedSynthesis();
    const queue = new SpeechQueue({
      ...synthesis,
      frameBytes: 4,
      signal: new AbortController().signal,
    });
    queue.say('One.');
    queue.say('Two.');
    synthesis.feed('One.', 6, 1);
    synthesis.finish('One.');
    await settle();
    expect(synthesis.started).toEqual(['One.', 'Two.']);
    synthesis.feed('Two.', 4, 2);
    synthesis.finish('Two.');
    queue.end();
    await settle();
    expect(readAll(queue)).toEqual([
      new Uint8Array(4).fill(1),
      Uint8Array.from([1, 1, 0, 0]),
      new Uint8Array(4).fill(2),
      'done',
    ]);
    expect(queue.spoken).toEqual({ characters: 8, bytes: 10 });
  });

  it('starts the next sentence’s synthesis before the current one’s ends, hiding its first-audio time', () => {
    const synthesis = new ScriptedSynthesis();
    const queue = new SpeechQueue({
      ...synthesis,
      frameBytes: 4,
      signal: new AbortController().signal,
    });
    queue.say('One.');
    queue.say('Two.');
    queue.say('Three.');
    expect(synthesis.started).toEqual(['One.', 'Two.']);
  });

  it('runs the synthesis only a few sentences ahead of what plays', async () => {
    const synthesis = new ScriptedSynthesis();
    const queue = new SpeechQueue({
      ...synthesis,
      frameBytes: 4,
      ahead: 1,
      signal: new AbortController().signal,
    });
    for (const sentence of ['A.', 'B.', 'C.']) queue.say(sentence);
    synthesis.finish('A.');
    await settle();
    synthesis.finish('B.');
    await settle();
    expect(synthesis.started).toEqual(['A.', 'B.']);
    queue.read();
    await settle();
    expect(synthesis.started).toEqual(['A.', 'B.', 'C.']);
  });

  it('drops what is not played and stops synthesizing when cancelled', async () => {
    const synthesis = new ScriptedSynthesis();
    const queue = new SpeechQueue({
      ...synthesis,
      frameBytes: 4,
      signal: new AbortController().signal,
    });
    queue.say('One.');
    queue.say('Two.');
    synthesis.feed('One.', 40, 1);
    await settle();
    queue.cancel();
    queue.say('Three.');
    await settle();
    expect(queue.read()).toBe('done');
    expect(synthesis.started).toEqual(['One.', 'Two.']);
  });

  it('speaks nothing after a sentence whose synthesis failed, and tells why', async () => {
    const errors: unknown[] = [];
    const failing = (sentence: string): AsyncIterable<Uint8Array> => ({
      async *[Symbol.asyncIterator]() {
        await Promise.resolve();
        throw new Error(`no voice for ${sentence}`);
        yield new Uint8Array(0);
      },
    });
    const queue = new SpeechQueue({
      synthesize: failing,
      frameBytes: 4,
      signal: new AbortController().signal,
      onError: (error) => errors.push(error),
    });
    queue.say('One.');
    queue.say('Two.');
    await settle();
    expect(queue.read()).toBe('done');
    expect(errors).toHaveLength(1);
  });
});
