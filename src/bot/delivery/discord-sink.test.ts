import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { RecordingTarget } from '../../../tests/support/recording-target.ts';
import { DiscordSink } from './discord-sink.ts';
import { allowedMentionsFor } from './message-target.ts';
import { TypingAllowance } from './typing-allowance.ts';
import { WriteBudgets } from './write-budgets.ts';

function harness(options: { limit?: number; replyTo?: string; typingPerSecond?: number } = {}) {
  const clock = new ManualClock();
  const target = new RecordingTarget('900000000000000001', () => clock.now());
  const budgets = new WriteBudgets(clock);
  const typing = new TypingAllowance(clock, { perSecond: options.typingPerSecond });
  const sink = new DiscordSink({
    target,
    budgets,
    typing,
    clock,
    logger: silentLogger,
    allowedMentions: allowedMentionsFor({ allowUserMentions: false }),
    replyTo: options.replyTo ?? '800000000000000001',
    limit: options.limit ?? 2000,
  });
  /** Discord's observed 5 writes per 5 s, as the headers of a first response would say. */
  const emptyBucket = (resetAfterMs = 5_000): void =>
    budgets.observe(target.channelId, { limit: 5, remaining: 0, resetAfterMs });
  return { clock, target, budgets, typing, sink, emptyBucket };
}

describe('DiscordSink', () => {
  it('replies to the trigger with the first message only, always with explicit allowed mentions', async () => {
    const { target, sink } = harness();
    sink.pushMessage('one');
    sink.pushMessage('two');
    await settle();
    sink.pushMessage('three');
    const ids = await sink.flush();
    const sends = target.contentWrites();
    expect(sends.every((write) => write.kind === 'send')).toBe(true);
    expect(ids).toHaveLength(target.contentWrites().length);
    expect(sends.map((write) => (write.kind === 'send' ? write.message.replyTo : 'x'))).toEqual([
      '800000000000000001',
      ...sends.slice(1).map(() => undefined),
    ]);
    for (const write of sends) {
      expect(write.kind === 'send' && write.message.allowedMentions).toEqual({
        parse: [],
        repliedUser: false,
      });
    }
    expect(target.visible().join('\n')).toBe('one\ntwo\nthree');
  });

  it('merges chunks that meet an empty bucket into one message, up to the limit', async () => {
    const { clock, target, sink, emptyBucket } = harness({ limit: 12 });
    emptyBucket();
    for (const chunk of ['aaaa', 'bbbb', 'cccc', 'dddd']) sink.pushMessage(chunk);
    await settle();
    expect(target.contentWrites()).toHaveLength(0);
    await clock.advance(5_000);
    const ids = await sink.flush();
    expect(target.visible()).toEqual(['aaaa\nbbbb', 'cccc\ndddd']);
    expect(ids).toHaveLength(2);
  });

  it('never writes faster than the learned bucket allows', async () => {
    const { clock, target, budgets, sink } = harness();
    budgets.observe(target.channelId, { limit: 2, remaining: 2, resetAfterMs: 1_000 });
    for (let index = 0; index < 6; index += 1) {
      sink.pushMessage(`chunk ${index}`);
      await settle();
      await clock.advance(100);
    }
    await clock.advance(5_000);
    await sink.flush();
    const times = target.contentWrites().map((write) => write.at);
    for (let index = 2; index < times.length; index += 1) {
      expect((times[index] ?? 0) - (times[index - 2] ?? 0)).toBeGreaterThanOrEqual(1_000);
    }
    expect(target.visible().join('\n')).toBe(
      [0, 1, 2, 3, 4, 5].map((index) => `chunk ${index}`).join('\n'),
    );
  });

  it('edit-in-place: writes only the latest content and starts a new message after a seal', async () => {
    const { clock, target, sink, emptyBucket } = harness();
    sink.updateCurrent('Hel');
    await settle();
    emptyBucket(1_000);
    sink.updateCurrent('Hello');
    sink.updateCurrent('Hello wor');
    sink.updateCurrent('Hello world');
    sink.sealCurrent();
    sink.updateCurrent('Second');
    await clock.advance(1_000);
    await clock.advance(1_000);
    const ids = await sink.flush();
    expect(target.contentWrites().map((write) => write.kind)).toEqual(['send', 'edit', 'send']);
    expect(target.visible()).toEqual(['Hello world', 'Second']);
    expect(ids).toHaveLength(2);
    const edit = target.contentWrites()[1];
    expect(edit?.kind === 'edit' && edit.edit.allowedMentions).toEqual({
      parse: [],
      repliedUser: false,
    });
  });

  it('continues in a new message when an edit is refused (deleted, or 30046 too old)', async () => {
    const { target, sink } = harness();
    sink.updateCurrent('first');
    await settle();
    target.failNext('edit', 'too_old_to_edit');
    sink.updateCurrent('first and more');
    const ids = await sink.flush();
    expect(ids).toHaveLength(2);
    expect(target.visible()).toEqual(['first', 'first and more']);
  });

  it('sends nothing more after discardPending (a stop), and drops queued chunks', async () => {
    const { clock, target, sink, emptyBucket } = harness();
    sink.pushMessage('sent before the stop');
    await settle();
    emptyBucket();
    sink.pushMessage('queued 1');
    sink.pushMessage('queued 2');
    sink.discardPending();
    sink.pushMessage('after the stop');
    await clock.advance(10_000);
    await sink.flush();
    expect(target.visible()).toEqual(['sent before the stop']);
  });

  it('keeps typing alive every 8 s while wanted and stops when flushed', async () => {
    const { clock, target, sink } = harness();
    sink.setTyping(true);
    await settle();
    await clock.advance(8_000);
    await clock.advance(8_000);
    expect(target.writes.filter((write) => write.kind === 'typing')).toHaveLength(3);
    await sink.flush();
    await clock.advance(30_000);
    expect(target.writes.filter((write) => write.kind === 'typing')).toHaveLength(3);
  });

  it('skips typing while the process-wide allowance is spent, and types once it refills', async () => {
    const { clock, target, typing, sink } = harness({ typingPerSecond: 1 });
    expect(typing.tryTake()).toBe(true); // another channel took this second's typing call
    sink.setTyping(true);
    await settle();
    expect(target.writes.filter((write) => write.kind === 'typing')).toHaveLength(0);
    await clock.advance(1_000);
    expect(target.writes.filter((write) => write.kind === 'typing')).toHaveLength(1);
    await sink.flush();
  });

  it('shows a tool status message and deletes it when cleared', async () => {
    const { target, sink } = harness();
    sink.setStatus('Using `remember_fact`…');
    await settle();
    expect(target.visible()).toEqual(['Using `remember_fact`…']);
    sink.setStatus(undefined);
    sink.pushMessage('done');
    const ids = await sink.flush();
    expect(target.visible()).toEqual(['done']);
    expect(ids).toHaveLength(1);
  });

  it('shows a status once even when the tool ends before it could be written, after the preceding text', async () => {
    const { target, sink } = harness();
    sink.pushMessage('before the tool');
    sink.setStatus('Using `current_time`…');
    sink.setStatus(undefined);
    sink.pushMessage('after the tool');
    await sink.flush();
    const sends = target.writes.filter((write) => write.kind === 'send');
    expect(sends.map((write) => write.kind === 'send' && write.message.content)).toEqual([
      'before the tool',
      'Using `current_time`…',
      'after the tool',
    ]);
    expect(target.visible()).toEqual(['before the tool', 'after the tool']);
  });

  it('stops writing and reports the failure when the bot may not send here', async () => {
    const { target, sink } = harness();
    target.failNext('send', 'forbidden');
    sink.pushMessage('a');
    sink.pushMessage('b');
    await expect(sink.flush()).rejects.toThrow(/may not write/);
    expect(sink.failure?.failure).toBe('forbidden');
    expect(target.visible()).toEqual([]);
  });
});
