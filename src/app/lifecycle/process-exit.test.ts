import { describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../core/logger.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { ProcessExit } from './process-exit.ts';

function fatalCounter(): { logger: Logger; fatal: string[] } {
  const fatal: string[] = [];
  const logger: Logger = {
    ...silentLogger,
    fatal: (first: object | string, message?: string) =>
      fatal.push(typeof first === 'string' ? first : (message ?? '')),
  };
  return { logger, fatal };
}

describe('ProcessExit', () => {
  it('logs the first failure once, cleans up, then exits 1', async () => {
    const { logger, fatal } = fatalCounter();
    const exits: number[] = [];
    let cleaned = false;
    const exit = new ProcessExit({
      logger,
      clock: new ManualClock(),
      cleanup: () => {
        cleaned = true;
        return Promise.resolve();
      },
      exit: (code) => exits.push(code),
    });
    exit.fail('first');
    exit.fail('second');
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(fatal).toEqual(['first']);
    expect(cleaned).toBe(true);
    expect(exits).toEqual([1]);
  });

  it('exits after the deadline when cleanup hangs', async () => {
    const clock = new ManualClock();
    const exits: number[] = [];
    const exit = new ProcessExit({
      logger: silentLogger,
      clock,
      cleanup: () => new Promise(() => undefined),
      exit: (code) => exits.push(code),
      deadlineMs: 5_000,
    });
    exit.fail('stuck');
    await clock.advance(4_999);
    expect(exits).toEqual([]);
    await clock.advance(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits).toEqual([1]);
  });
});
