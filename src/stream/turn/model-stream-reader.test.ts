import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.ts';
import { ModelStreamReader } from './model-stream-reader.ts';
import { ManualClock } from '../testing/manual-clock.ts';

async function* hangsAfter(parts: StreamPart[]): AsyncIterable<StreamPart> {
  yield* parts;
  await new Promise<never>(() => undefined); // a stalled connection: never answers, ignores aborts
}

const textPart = (text: string): StreamPart => ({ type: 'text-delta', text });

describe('ModelStreamReader', () => {
  it('fires its inactivity watchdog on a stream that stalls', async () => {
    const clock = new ManualClock();
    const reader = new ModelStreamReader(hangsAfter([textPart('a')])[Symbol.asyncIterator](), {
      clock,
      timeoutMs: 60_000,
      signal: new AbortController().signal,
    });
    expect(await reader.next()).toEqual({ kind: 'part', part: textPart('a') });
    const stalled = reader.next();
    await clock.advance(59_999);
    let answered = false;
    void stalled.then(() => (answered = true));
    await clock.advance(0);
    expect(answered).toBe(false);
    await clock.advance(1);
    expect(await stalled).toEqual({ kind: 'timeout' });
    reader.close();
  });

  it('measures silence from the last part, not from the start', async () => {
    const clock = new ManualClock();
    const gate: Array<() => void> = [];
    async function* slow(): AsyncIterable<StreamPart> {
      for (let index = 0; index < 3; index += 1) {
        await new Promise<void>((resolve) => gate.push(resolve));
        yield textPart(String(index));
      }
    }
    const reader = new ModelStreamReader(slow()[Symbol.asyncIterator](), {
      clock,
      timeoutMs: 1000,
      signal: new AbortController().signal,
    });
    for (let index = 0; index < 3; index += 1) {
      const next = reader.next();
      await clock.advance(900);
      gate.shift()?.();
      expect(await next).toEqual({ kind: 'part', part: textPart(String(index)) });
    }
    reader.close();
  });

  it('answers a read in progress at once when the turn is aborted', async () => {
    const controller = new AbortController();
    const reader = new ModelStreamReader(hangsAfter([])[Symbol.asyncIterator](), {
      clock: new ManualClock(),
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    const pending = reader.next();
    controller.abort();
    expect(await pending).toEqual({ kind: 'aborted' });
    expect(await reader.next()).toEqual({ kind: 'aborted' });
    reader.close();
  });

  it('reports a thrown error as a value, and the end as the end', async () => {
    async function* failing(): AsyncIterable<StreamPart> {
      yield textPart('x');
      await Promise.resolve();
      throw new Error('socket hang up');
    }
    const reader = new ModelStreamReader(failing()[Symbol.asyncIterator](), {
      clock: new ManualClock(),
      timeoutMs: 60_000,
      signal: new AbortController().signal,
    });
    await reader.next();
    const failed = await reader.next();
    expect(failed.kind).toBe('thrown');
    reader.close();
  });
});
