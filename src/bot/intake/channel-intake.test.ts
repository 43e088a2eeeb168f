import { describe, expect, it } from 'vitest';
import { settle } from '../../stream/testing/manual-clock.ts';
import { ChannelIntake } from './channel-intake.ts';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('ChannelIntake', () => {
  it("finishes a channel's messages in arrival order even when an earlier one is slower", async () => {
    const intake = new ChannelIntake({ maxBacklog: 10, onError: () => undefined });
    const done: string[] = [];
    const slow = deferred();
    intake.enqueue('c', async () => {
      await slow.promise;
      done.push('first');
    });
    intake.enqueue('c', () => Promise.resolve(void done.push('second')));
    intake.enqueue('other', () => Promise.resolve(void done.push('other channel')));
    await settle();
    expect(done).toEqual(['other channel']);
    slow.resolve();
    await intake.drained();
    expect(done).toEqual(['other channel', 'first', 'second']);
  });

  it('goes on after a failing message and reports the failure', async () => {
    const errors: unknown[] = [];
    const intake = new ChannelIntake({ maxBacklog: 10, onError: (error) => errors.push(error) });
    const done: string[] = [];
    intake.enqueue('c', () => Promise.reject(new Error('boom')));
    intake.enqueue('c', () => Promise.resolve(void done.push('after')));
    await intake.drained();
    expect(done).toEqual(['after']);
    expect(errors).toHaveLength(1);
  });

  it('refuses beyond the backlog and forgets idle channels', async () => {
    const intake = new ChannelIntake({ maxBacklog: 2, onError: () => undefined });
    const gate = deferred();
    expect(intake.enqueue('c', () => gate.promise)).toBe(true);
    expect(intake.enqueue('c', () => Promise.resolve())).toBe(true);
    expect(intake.enqueue('c', () => Promise.resolve())).toBe(false);
    expect(intake.backlog('c')).toBe(2);
    gate.resolve();
    await intake.drained();
    expect(intake.backlog('c')).toBe(0);
    expect(intake.enqueue('c', () => Promise.resolve())).toBe(true);
    await intake.drained();
  });
});
