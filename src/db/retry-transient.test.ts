import { describe, expect, it } from 'vitest';
import { ManualClock } from '../stream/testing/manual-clock.ts';
import { retryTransient } from './retry-transient.ts';

const outage = (): Error =>
  Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** An operation that fails with an outage until the manual clock reaches `upAt`. */
function databaseUpAt(clock: ManualClock, upAt: number) {
  const attempts: number[] = [];
  const operation = (): Promise<string> => {
    attempts.push(clock.now());
    return clock.now() >= upAt ? Promise.resolve('written') : Promise.reject(outage());
  };
  return { attempts, operation };
}

describe('retryTransient', () => {
  it('waits out an outage with doubling waits, capped, and returns the result', async () => {
    const clock = new ManualClock(0);
    const { attempts, operation } = databaseUpAt(clock, 30_000);
    const retries: number[] = [];
    const result = retryTransient(operation, {
      clock,
      maxElapsedMs: 5 * 60_000,
      random: () => 1,
      onRetry: ({ delayMs }) => retries.push(delayMs),
    });
    await clock.advance(60_000);
    expect(await result).toBe('written');
    expect(retries.slice(0, 6)).toEqual([250, 500, 1000, 2000, 4000, 5000]);
    expect(attempts.at(-1)).toBeGreaterThanOrEqual(30_000);
    expect(attempts.at(-1)).toBeLessThanOrEqual(35_000);
  });

  it('jitters each wait between half and all of its nominal length', async () => {
    const clock = new ManualClock(0);
    const { operation } = databaseUpAt(clock, 1_000);
    const retries: number[] = [];
    const result = retryTransient(operation, {
      clock,
      maxElapsedMs: 60_000,
      random: () => 0,
      onRetry: ({ delayMs }) => retries.push(delayMs),
    });
    await clock.advance(10_000);
    await result;
    expect(retries.slice(0, 3)).toEqual([125, 250, 500]);
  });

  it('gives up with the last error once the time allowed would be passed', async () => {
    const clock = new ManualClock(0);
    const { attempts, operation } = databaseUpAt(clock, Infinity);
    const result = retryTransient(operation, { clock, maxElapsedMs: 10_000, random: () => 1 });
    const settled = result.catch((error: unknown) => error);
    await clock.advance(60_000);
    expect(await settled).toMatchObject({ code: 'ECONNREFUSED' });
    expect(attempts.at(-1)).toBeLessThanOrEqual(10_000);
    expect(attempts.length).toBeGreaterThan(3);
  });

  it('does not retry a failure that is not an outage', async () => {
    const clock = new ManualClock(0);
    let calls = 0;
    const duplicate = Object.assign(new Error('duplicate key'), { code: '23505' });
    await expect(
      retryTransient(
        () => {
          calls += 1;
          return Promise.reject(duplicate);
        },
        { clock, maxElapsedMs: 60_000 },
      ),
    ).rejects.toBe(duplicate);
    expect(calls).toBe(1);
  });

  it('stops waiting at once when aborted, with the last database error', async () => {
    const clock = new ManualClock(0);
    const { attempts, operation } = databaseUpAt(clock, Infinity);
    const abort = new AbortController();
    const result = retryTransient(operation, { clock, maxElapsedMs: 60_000, signal: abort.signal });
    const settled = result.catch((error: unknown) => error);
    await clock.untilSleeping();
    abort.abort();
    expect(await settled).toMatchObject({ code: 'ECONNREFUSED' });
    expect(attempts).toHaveLength(1);
  });

  it('still makes its one attempt when the signal is already aborted', async () => {
    const clock = new ManualClock(0);
    const abort = new AbortController();
    abort.abort();
    const { attempts, operation } = databaseUpAt(clock, 0);
    expect(await retryTransient(operation, { clock, maxElapsedMs: 1, signal: abort.signal })).toBe(
      'written',
    );
    const down = databaseUpAt(clock, Infinity);
    await expect(
      retryTransient(down.operation, { clock, maxElapsedMs: 60_000, signal: abort.signal }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect([attempts.length, down.attempts.length]).toEqual([1, 1]);
  });
});
