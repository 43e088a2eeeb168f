import { describe, expect, it } from 'vitest';
import { settle } from '../../stream/testing/manual-clock.ts';
import { sinkHarness } from '../../../tests/support/sink-harness.ts';
import type { RecordingTarget } from '../../../tests/support/recording-target.ts';

const STOP = { customId: 'stop-reply:turn-1', label: 'Stop' };
const NO_MENTIONS = { parse: [], repliedUser: false };

const harness = (limit?: number) =>
  sinkHarness({ stopButton: STOP, ...(limit === undefined ? {} : { limit }) });

/** The buttons every message shows at the end, by message id (creates then edits, in order). */
function buttonsShown(target: RecordingTarget): Map<string, string[]> {
  const shown = new Map<string, string[]>();
  for (const write of target.writes) {
    if (write.kind === 'send') {
      shown.set(
        write.id,
        (write.message.components ?? []).map((button) => button.customId),
      );
    }
    if (write.kind === 'edit' && write.edit.components !== undefined) {
      shown.set(
        write.id,
        write.edit.components.map((button) => button.customId),
      );
    }
  }
  return shown;
}

describe('DiscordSink: the Stop button', () => {
  it('message per block: only the first message carries it, and one edit takes it away at the end', async () => {
    const { target, sink } = harness();
    sink.pushMessage('one');
    await settle();
    sink.pushMessage('two');
    await settle();
    expect(buttonsShown(target)).toEqual(
      new Map([
        ['1000', ['stop-reply:turn-1']],
        ['1001', []],
      ]),
    );
    await sink.flush();
    const writes = target.contentWrites();
    expect(writes).toHaveLength(3);
    expect(writes.at(-1)).toMatchObject({
      kind: 'edit',
      id: '1000',
      edit: { content: 'one', allowedMentions: NO_MENTIONS, components: [] },
    });
    expect([...buttonsShown(target).values()].flat()).toEqual([]);
    expect(target.visible()).toEqual(['one', 'two']);
  });

  it('message per block: a reply that is one message sent at the end never gets it (no extra edit)', async () => {
    const { clock, target, sink, emptyBucket } = harness();
    emptyBucket();
    sink.pushMessage('all of it');
    await settle();
    const flushed = sink.flush();
    await clock.advance(5_000);
    await flushed;
    expect(target.contentWrites()).toHaveLength(1);
    expect(target.contentWrites()[0]).toMatchObject({ kind: 'send' });
    expect([...buttonsShown(target).values()].flat()).toEqual([]);
  });

  it('edit in place: the final edit of the first message takes it away in the same write', async () => {
    const { clock, target, sink, emptyBucket } = harness();
    sink.updateCurrent('Hello');
    await settle();
    emptyBucket();
    sink.updateCurrent('Hello there, friend.');
    await settle();
    const flushed = sink.flush();
    await clock.advance(5_000);
    await flushed;
    const writes = target.contentWrites();
    expect(writes).toHaveLength(2);
    expect(writes[0]).toMatchObject({ kind: 'send', message: { components: [STOP] } });
    expect(writes[1]).toMatchObject({
      kind: 'edit',
      edit: { content: 'Hello there, friend.', allowedMentions: NO_MENTIONS, components: [] },
    });
  });

  it('edit in place: the first message of a longer reply loses it in one paced edit at the end', async () => {
    const { clock, target, sink } = harness();
    sink.updateCurrent('First part.');
    await settle();
    sink.sealCurrent();
    sink.updateCurrent('Second part.');
    await settle();
    await clock.advance(5_000);
    await sink.flush();
    expect(target.visible()).toEqual(['First part.', 'Second part.']);
    expect(target.contentWrites().at(-1)).toMatchObject({
      kind: 'edit',
      id: '1000',
      edit: { content: 'First part.', components: [] },
    });
    expect([...buttonsShown(target).values()].flat()).toEqual([]);
  });

  it('after a stop, nothing more of the reply is written but the button still goes', async () => {
    const { clock, target, sink, emptyBucket } = harness();
    sink.updateCurrent('Partial');
    await settle();
    emptyBucket();
    sink.updateCurrent('Partial answer that will be cut');
    await settle();
    sink.discardPending();
    const flushed = sink.flush();
    await clock.advance(5_000);
    await flushed;
    expect(target.visible()).toEqual(['Partial']);
    expect(target.contentWrites().at(-1)).toMatchObject({
      kind: 'edit',
      edit: { content: 'Partial', components: [] },
    });
    expect([...buttonsShown(target).values()].flat()).toEqual([]);
  });

  it('takes the end edit through the channel budget, like every other write', async () => {
    const { clock, target, sink, emptyBucket } = harness();
    sink.pushMessage('one');
    await settle();
    emptyBucket();
    const flushed = sink.flush();
    await settle();
    expect(target.contentWrites()).toHaveLength(1);
    await clock.advance(5_000);
    await flushed;
    expect(target.contentWrites()).toHaveLength(2);
    expect(target.contentWrites()[1]?.at).toBeGreaterThanOrEqual(5_000);
  });

  it('a final edit refused for good (with its removal) is not followed by a removal of its own', async () => {
    const { clock, target, sink, emptyBucket } = harness();
    sink.updateCurrent('Hello');
    await settle();
    emptyBucket();
    sink.updateCurrent('Hello there');
    await settle();
    target.failNext('edit', 'transient', 3);
    const flushed = sink.flush();
    await clock.advance(30_000);
    const { failure } = await flushed;
    expect(failure).toBeDefined();
    expect(target.refused).toHaveLength(3);
    expect(
      target.refused.every((write) => write.kind === 'edit' && write.edit.components?.length === 0),
    ).toBe(true);
    expect(target.contentWrites().filter((write) => write.kind === 'edit')).toEqual([]);
  });

  it('a button whose message was deleted is not edited again', async () => {
    const { clock, target, sink } = harness();
    sink.updateCurrent('Hello');
    await settle();
    target.failNext('edit', 'gone');
    sink.updateCurrent('Hello again');
    await settle();
    await clock.advance(5_000);
    await sink.flush();
    const edits = target.contentWrites().filter((write) => write.kind === 'edit');
    expect(edits).toEqual([]);
    expect(target.visible()).toEqual(['Hello', 'Hello again']);
    expect(buttonsShown(target).get('1001')).toEqual([]);
  });
});
