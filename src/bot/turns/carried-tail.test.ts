import { describe, expect, it } from 'vitest';
import { recordingLogger } from '../../../tests/tools/support/recording-logger.ts';
import { CarriedTail, type ClaimCarrier } from './carried-tail.ts';

/** A carrier keeping claims in memory: a key is "made" when no claim for it existed. */
function memoryCarrier(existing: readonly string[] = []) {
  const claims = new Map<string, string | undefined>(existing.map((key) => [key, undefined]));
  const calls: string[] = [];
  const carrier: ClaimCarrier & { fail?: boolean } = {
    carry: ({ keys, replyTo }) => {
      calls.push(`carry ${keys.join(',')}`);
      if (carrier.fail === true) return Promise.reject(new Error('connection reset'));
      const made = keys.filter((key) => !claims.has(key));
      for (const key of keys) claims.set(key, replyTo);
      return Promise.resolve(made);
    },
    uncarry: ({ keys, made }) => {
      calls.push(`uncarry ${keys.join(',')} made ${made.join(',')}`);
      for (const key of keys) claims.set(key, undefined);
      for (const key of made) claims.delete(key);
      return Promise.resolve();
    },
  };
  return { carrier, claims, calls };
}

function tail(carrier: ClaimCarrier | undefined, logger = recordingLogger()) {
  return new CarriedTail({ carrier, channelId: 'c1', replyTo: 'm9', logger });
}

describe('CarriedTail', () => {
  it('writes nothing for a request that carries nothing, the usual turn', async () => {
    const { carrier, calls } = memoryCarrier();
    const carried = tail(carrier);
    await carried.carry([]);
    await carried.carry([]);
    expect(calls).toEqual([]);
    expect(carried.made).toEqual([]);
  });

  it('records what a request carries once, and what this turn claimed is settled with it', async () => {
    const { carrier, claims, calls } = memoryCarrier(['m2']);
    const carried = tail(carrier);
    await carried.carry(['m1', 'm2']);
    // An overflow retry whose request carries the same: nothing new to write.
    await carried.carry(['m1', 'm2']);
    expect(calls).toEqual(['carry m1,m2']);
    expect(claims.get('m1')).toBe('m9');
    expect(carried.made).toEqual(['m1']);
  });

  it('undoes what a later attempt no longer carries: its own claim removed, a found one kept', async () => {
    const { carrier, claims, calls } = memoryCarrier(['m2']);
    const carried = tail(carrier);
    await carried.carry(['m1', 'm2', 'm3']);
    await carried.carry(['m3']);
    expect(calls).toEqual(['carry m1,m2,m3', 'uncarry m1,m2 made m1']);
    expect([...claims]).toEqual([
      ['m2', undefined],
      ['m3', 'm9'],
    ]);
    expect(carried.made).toEqual(['m3']);
  });

  it('logs a failed write and lets the turn go on', async () => {
    const { carrier } = memoryCarrier();
    carrier.fail = true;
    const logger = recordingLogger();
    const carried = tail(carrier, logger);
    await expect(carried.carry(['m1'])).resolves.toBeUndefined();
    expect(carried.made).toEqual([]);
    expect(logger.entries.map((entry) => [entry.level, entry.fields['messageIds']])).toEqual([
      ['warn', ['m1']],
    ]);
  });

  it('does nothing without a carrier (no claims ledger wired)', async () => {
    const carried = tail(undefined);
    await carried.carry(['m1']);
    expect(carried.made).toEqual([]);
  });
});
