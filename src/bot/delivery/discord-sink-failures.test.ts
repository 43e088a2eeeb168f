import { describe, expect, it } from 'vitest';
import { settle } from '../../stream/testing/manual-clock.ts';
import { GAP_NOTICE, sinkHarness as harness } from '../../../tests/support/sink-harness.ts';

describe('DiscordSink when Discord writes fail', () => {
  it('retries a 5xx send after a backoff on the injected clock, with the same nonce, and delivers once', async () => {
    const { clock, target, sink } = harness();
    target.failNext('send', 'transient');
    sink.pushMessage('hello');
    await settle();
    expect(target.refused).toHaveLength(1);
    await clock.advance(999);
    expect(target.contentWrites()).toHaveLength(0);
    await clock.advance(1);
    const { messageIds, failure } = await sink.flush();
    expect(failure).toBeUndefined();
    expect(target.visible()).toEqual(['hello']);
    expect(messageIds).toHaveLength(1);
    const sent = target.contentWrites()[0];
    const refused = target.refused[0];
    expect(sent?.kind === 'send' && sent.message.nonce).toBeTruthy();
    expect(refused?.kind === 'send' && refused.message.nonce).toBe(
      sent?.kind === 'send' && sent.message.nonce,
    );
  });

  it('loses a block that keeps failing, says so before the next one, and reports the turn failed', async () => {
    const { clock, target, sink } = harness();
    sink.pushMessage('one');
    await settle();
    target.failNext('send', 'transient', 3);
    sink.pushMessage('two');
    await settle();
    sink.pushMessage('three');
    await clock.advance(1_000);
    await clock.advance(3_000);
    const { messageIds, failure } = await sink.flush();
    expect(target.refused.map((write) => write.kind === 'send' && write.message.content)).toEqual([
      'two',
      'two',
      'two',
    ]);
    expect(target.visible()).toEqual(['one', GAP_NOTICE, 'three']);
    expect(messageIds).toHaveLength(3);
    expect(failure).toMatchObject({ code: 'delivery_write_failed', retryable: true });
    expect(failure?.cause).toMatchObject({ failure: 'transient' });
  });

  it('never retries a request Discord rejected as bad, and still marks the gap', async () => {
    const { target, sink } = harness();
    target.failNext('send', 'other');
    sink.pushMessage('rejected');
    await settle();
    sink.pushMessage('next');
    const { failure } = await sink.flush();
    expect(target.refused).toHaveLength(1);
    expect(target.visible()).toEqual([GAP_NOTICE, 'next']);
    expect(failure).toMatchObject({ code: 'delivery_write_failed' });
  });

  it('edit mode: a failed edit is never marked written, and the next update repairs it', async () => {
    const { clock, target, sink } = harness();
    sink.updateCurrent('Hello');
    await settle();
    target.failNext('edit', 'transient', 3);
    sink.updateCurrent('Hello world');
    await settle();
    await clock.advance(1_000);
    await clock.advance(3_000);
    expect(target.visible()).toEqual(['Hello']);
    sink.updateCurrent('Hello world, again');
    const { failure } = await sink.flush();
    expect(target.visible()).toEqual(['Hello world, again']);
    expect(failure).toBeUndefined();
  });

  it('edit mode: a message whose last edit failed is a gap, announced before the next message', async () => {
    const { clock, target, sink } = harness();
    sink.updateCurrent('First part');
    await settle();
    target.failNext('edit', 'transient', 3);
    sink.updateCurrent('First part, finished');
    sink.sealCurrent();
    await settle();
    await clock.advance(1_000);
    await clock.advance(3_000);
    sink.updateCurrent('Second part');
    const { messageIds, failure } = await sink.flush();
    expect(target.visible()).toEqual(['First part', GAP_NOTICE, 'Second part']);
    expect(messageIds).toHaveLength(3);
    expect(failure).toMatchObject({ code: 'delivery_write_failed' });
  });

  it('edit mode: when the message being edited was deleted, the reply continues whole in a new one', async () => {
    const { target, sink } = harness();
    sink.updateCurrent('Draft');
    await settle();
    target.failNext('edit', 'gone');
    sink.updateCurrent('Draft, grown');
    const { messageIds, failure } = await sink.flush();
    expect(target.visible()).toEqual(['Draft', 'Draft, grown']);
    expect(messageIds).toHaveLength(2);
    expect(failure).toBeUndefined();
  });

  it('stops retrying when the turn is stopped: nothing more is sent and nothing is reported lost', async () => {
    const { clock, target, sink } = harness();
    target.failNext('send', 'transient');
    sink.pushMessage('about to fail');
    await settle();
    sink.discardPending();
    await clock.advance(10_000);
    const { messageIds, failure } = await sink.flush();
    expect(target.contentWrites()).toEqual([]);
    expect(messageIds).toEqual([]);
    expect(failure).toBeUndefined();
  });

  it('a failed tool status line is no gap in the reply', async () => {
    const { clock, target, sink } = harness();
    target.failNext('send', 'transient', 3);
    sink.setStatus('Using `search`…');
    await settle();
    await clock.advance(1_000);
    await clock.advance(3_000);
    sink.setStatus(undefined);
    sink.pushMessage('answer');
    const { failure } = await sink.flush();
    expect(target.visible()).toEqual(['answer']);
    expect(failure).toBeUndefined();
  });
});
