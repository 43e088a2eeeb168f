import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { ChannelLocks } from './channel-locks.ts';
import { COALESCE_MAX_WAITING, ChannelTurnScheduler } from './channel-turn-scheduler.ts';

function harness(limits?: { count: number; weight: number }) {
  const batches: string[][] = [];
  const gates: Array<() => void> = [];
  const scheduler = new ChannelTurnScheduler<string>({
    locks: new ChannelLocks({ clock: new ManualClock(), holdTimeoutMs: 60_000 }),
    logger: silentLogger,
    weigh: (trigger) => trigger.length,
    ...(limits === undefined ? {} : { batchLimits: limits }),
    runTurn: ({ batch }) =>
      new Promise<void>((resolve) => {
        batches.push([...batch]);
        gates.push(resolve);
      }),
  });
  const finishTurn = async (): Promise<void> => {
    gates.shift()?.();
    await settle();
  };
  return { scheduler, batches, finishTurn };
}

describe('ChannelTurnScheduler', () => {
  it('coalesces everything that arrives during a live turn into the next turn', async () => {
    const { scheduler, batches, finishTurn } = harness();
    const coalesce = { policy: 'coalesce' as const, depth: 3 };
    expect(scheduler.submit('c', 'm1', coalesce)).toBe('started');
    await settle();
    expect(scheduler.submit('c', 'm2', coalesce)).toBe('coalesced');
    expect(scheduler.submit('c', 'm3', coalesce)).toBe('coalesced');
    expect(batches).toEqual([['m1']]);
    await finishTurn();
    expect(batches).toEqual([['m1'], ['m2', 'm3']]);
    await finishTurn();
    expect(scheduler.isBusy('c')).toBe(false);
  });

  it('reports its load: busy channels and the triggers waiting in them', async () => {
    const { scheduler, finishTurn } = harness();
    const coalesce = { policy: 'coalesce' as const, depth: 3 };
    expect(scheduler.load()).toEqual({ live: 0, queued: 0 });
    scheduler.submit('a', 'm1', coalesce);
    scheduler.submit('b', 'm2', coalesce);
    await settle();
    scheduler.submit('a', 'm3', coalesce);
    scheduler.submit('a', 'm4', coalesce);
    expect(scheduler.load()).toEqual({ live: 2, queued: 2 });
    await finishTurn();
    await finishTurn();
    expect(scheduler.load()).toEqual({ live: 1, queued: 0 });
  });

  it('is idle only when no channel has a turn live or waiting', async () => {
    const { scheduler, finishTurn } = harness();
    const coalesce = { policy: 'coalesce' as const, depth: 3 };
    expect(scheduler.isIdle()).toBe(true);
    scheduler.submit('a', 'm1', coalesce);
    await settle();
    scheduler.submit('a', 'm2', coalesce);
    expect(scheduler.isIdle()).toBe(false);
    await finishTurn();
    expect(scheduler.isIdle()).toBe(false); // m2's turn is live now
    await finishTurn();
    expect(scheduler.isIdle()).toBe(true);
  });

  it('queues one turn per trigger up to the depth, then rejects', async () => {
    const { scheduler, batches, finishTurn } = harness();
    const queue = { policy: 'queue' as const, depth: 2 };
    expect(scheduler.submit('c', 'm1', queue)).toBe('started');
    await settle();
    expect(scheduler.submit('c', 'm2', queue)).toBe('queued');
    expect(scheduler.submit('c', 'm3', queue)).toBe('queued');
    expect(scheduler.submit('c', 'm4', queue)).toBe('rejected');
    expect(scheduler.waiting('c')).toBe(2);
    await finishTurn();
    await finishTurn();
    await finishTurn();
    expect(batches).toEqual([['m1'], ['m2'], ['m3']]);
    expect(scheduler.isBusy('c')).toBe(false);
  });

  it('runs different channels at the same time', async () => {
    const { scheduler, batches } = harness();
    const coalesce = { policy: 'coalesce' as const, depth: 3 };
    scheduler.submit('a', 'a1', coalesce);
    scheduler.submit('b', 'b1', coalesce);
    await settle();
    expect(batches).toEqual([['a1'], ['b1']]);
  });

  it('is idle only once every channel has finished its live and waiting turns', async () => {
    const { scheduler, finishTurn } = harness();
    const coalesce = { policy: 'coalesce' as const, depth: 3 };
    let idle = false;
    await scheduler.whenIdle();
    scheduler.submit('a', 'a1', coalesce);
    scheduler.submit('b', 'b1', coalesce);
    await settle();
    scheduler.submit('a', 'a2', coalesce);
    void scheduler.whenIdle().then(() => {
      idle = true;
    });
    await finishTurn();
    await finishTurn();
    expect(idle).toBe(false);
    await finishTurn();
    expect(idle).toBe(true);
  });

  it('keeps draining after a turn throws', async () => {
    const batches: string[][] = [];
    const scheduler = new ChannelTurnScheduler<string>({
      locks: new ChannelLocks({ clock: new ManualClock(), holdTimeoutMs: 60_000 }),
      logger: silentLogger,
      runTurn: ({ batch }) => {
        batches.push([...batch]);
        return batch[0] === 'boom' ? Promise.reject(new Error('boom')) : Promise.resolve();
      },
    });
    const queue = { policy: 'queue' as const, depth: 3 };
    scheduler.submit('c', 'boom', queue);
    scheduler.submit('c', 'after', queue);
    await settle();
    expect(batches).toEqual([['boom'], ['after']]);
    expect(scheduler.isBusy('c')).toBe(false);
  });

  it('caps a coalesced batch by count and by weight; the rest waits for the next turn', async () => {
    const { scheduler, batches, finishTurn } = harness({ count: 3, weight: 10 });
    const coalesce = { policy: 'coalesce' as const, depth: 3 };
    scheduler.submit('c', 'first', coalesce);
    await settle();
    for (const trigger of ['a', 'b', 'c', 'd', 'eeeeeeeeee', 'f'])
      scheduler.submit('c', trigger, coalesce);
    await finishTurn();
    await finishTurn();
    await finishTurn();
    await finishTurn();
    // count 3 → a,b,c; then d (1) + e (10) > 10 → d alone; e alone (the first always fits); f.
    expect(batches).toEqual([['first'], ['a', 'b', 'c'], ['d'], ['eeeeeeeeee'], ['f']]);
  });

  it('rejects coalesced triggers beyond the waiting cap instead of growing without bound', async () => {
    const { scheduler } = harness();
    const coalesce = { policy: 'coalesce' as const, depth: 3 };
    scheduler.submit('c', 'live', coalesce);
    await settle();
    const outcomes = Array.from({ length: COALESCE_MAX_WAITING + 5 }, (_, index) =>
      scheduler.submit('c', `m${index}`, coalesce),
    );
    expect(outcomes.filter((outcome) => outcome === 'coalesced')).toHaveLength(
      COALESCE_MAX_WAITING,
    );
    expect(outcomes.filter((outcome) => outcome === 'rejected')).toHaveLength(5);
    expect(scheduler.load()).toEqual({ live: 1, queued: COALESCE_MAX_WAITING });
  });

  it('withdraws waiting triggers so they never run', async () => {
    const { scheduler, batches, finishTurn } = harness();
    const queue = { policy: 'queue' as const, depth: 5 };
    scheduler.submit('c', 'alice-1', queue);
    await settle();
    scheduler.submit('c', 'alice-2', queue);
    scheduler.submit('c', 'bob-1', queue);
    expect(scheduler.withdraw('c', (trigger) => trigger.startsWith('alice'))).toEqual(['alice-2']);
    await finishTurn();
    await finishTurn();
    expect(batches).toEqual([['alice-1'], ['bob-1']]);
  });

  it('gives back every waiting trigger at close and refuses new ones', async () => {
    const { scheduler, batches, finishTurn } = harness();
    const queue = { policy: 'queue' as const, depth: 5 };
    scheduler.submit('c', 'live', queue);
    await settle();
    scheduler.submit('c', 'waiting', queue);
    expect(scheduler.close()).toEqual(['waiting']);
    expect(scheduler.submit('d', 'late', queue)).toBe('rejected');
    await finishTurn();
    expect(batches).toEqual([['live']]);
    await scheduler.whenIdle();
  });
});

describe('ChannelTurnScheduler watchdog', () => {
  const coalesce = { policy: 'coalesce' as const, depth: 3 };
  const LIMIT_MS = 60_000;
  const HOLD_TIMEOUT_MS = 15 * 60_000;

  function watched(options: { acquireFails?: boolean } = {}) {
    const clock = new ManualClock();
    const overdue: Array<{ triggers: string[]; kind: string; turnId: string | undefined }> = [];
    const turns: Array<{ batch: string[]; begun: () => void; signal: AbortSignal }> = [];
    const gates: Array<() => void> = [];
    const locks = new ChannelLocks({ clock, holdTimeoutMs: HOLD_TIMEOUT_MS });
    let failures = options.acquireFails === true ? 1 : 0;
    const scheduler = new ChannelTurnScheduler<string>({
      locks: {
        acquire: (channelId: string) =>
          failures-- > 0 ? Promise.reject(new Error('lock store gone')) : locks.acquire(channelId),
      } as unknown as ChannelLocks,
      logger: silentLogger,
      newTurnId: () => `turn-${turns.length + 1}`,
      runTurn: ({ batch, begun, signal }) =>
        new Promise<void>((resolve) => {
          turns.push({ batch: [...batch], begun, signal });
          gates.push(resolve);
        }),
      watchdog: {
        limitMs: LIMIT_MS,
        clock,
        onOverdue: (_channelId, triggers, reason) =>
          overdue.push({ triggers: [...triggers], kind: reason.kind, turnId: reason.turnId }),
      },
    });
    return { clock, scheduler, overdue, turns, gates };
  }

  it('tells a message waiting behind a live turn that never ends, and withdraws it', async () => {
    const { clock, scheduler, overdue, turns } = watched();
    scheduler.submit('c', 'm1', coalesce);
    await settle();
    turns[0]?.begun(); // the live turn streams (and then hangs for good)
    scheduler.submit('c', 'm2', coalesce);
    await clock.advance(LIMIT_MS);
    expect(overdue).toEqual([{ triggers: ['m2'], kind: 'waiting', turnId: 'turn-1' }]);
    expect(scheduler.waiting('c')).toBe(0);
  });

  it('abandons a turn that never reaches its model call, tells its members, and moves on', async () => {
    const { clock, scheduler, overdue, turns } = watched();
    scheduler.submit('c', 'm1', coalesce);
    await settle();
    scheduler.submit('c', 'm2', coalesce);
    await clock.advance(LIMIT_MS);
    expect(turns[0]?.signal.aborted).toBe(true);
    expect(overdue[0]).toEqual({ triggers: ['m1'], kind: 'stalled', turnId: 'turn-1' });
    await settle();
    // The channel is not left busy behind the stuck turn: the message after it runs.
    expect(turns[1]?.batch).toEqual(['m2']);
  });

  it('lets go of a message once its turn has begun, however long the reply takes', async () => {
    const { clock, scheduler, overdue, turns, gates } = watched();
    scheduler.submit('c', 'm1', coalesce);
    await settle();
    turns[0]?.begun();
    await clock.advance(LIMIT_MS * 3);
    expect(overdue).toEqual([]);
    gates[0]?.();
    await settle();
    expect(scheduler.isBusy('c')).toBe(false);
  });

  it('a begun turn that never ends is let go when its lock is taken back: the channel answers again', async () => {
    const { clock, scheduler, overdue, turns } = watched();
    scheduler.submit('c', 'm1', coalesce);
    await settle();
    turns[0]?.begun(); // the reply began, then its turn hangs for good (it ignores its signal)
    await clock.advance(HOLD_TIMEOUT_MS);
    await settle();
    expect(scheduler.isBusy('c')).toBe(false);
    scheduler.submit('c', 'm2', coalesce);
    await settle();
    expect(turns[1]?.batch).toEqual(['m2']);
    expect(overdue).toEqual([]);
  });

  it('a lock that cannot be taken ends that turn only: the channel does not stay busy for good', async () => {
    const { scheduler, turns } = watched({ acquireFails: true });
    scheduler.submit('c', 'm1', coalesce);
    await settle();
    expect(scheduler.isBusy('c')).toBe(false);
    scheduler.submit('c', 'm2', coalesce);
    await settle();
    expect(turns.map((turn) => turn.batch)).toEqual([['m2']]);
  });
});
