import type { Message } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../core/errors.ts';
import { silentLogger } from '../../core/logger.ts';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { RecordingTarget } from '../../../tests/support/recording-target.ts';
import { DeliveryPort } from './delivery-port.ts';
import { DiscordSink } from './discord-sink.ts';
import { postFailureNotice } from './failure-notice.ts';
import { MemberNotices, type NoticeSubject } from './member-notices.ts';
import { allowedMentionsFor } from './message-target.ts';
import { TypingAllowance } from './typing-allowance.ts';

const CHANNEL = '900000000000000001';
const MEMBER_MESSAGE = '800000000000000001';

function port() {
  const clock = new ManualClock();
  const target = new RecordingTarget(CHANNEL, () => clock.now());
  const delivery = new DeliveryPort({ clock, logger: silentLogger });
  /** The headers of a response that spent the channel's 5 writes per 5 s. */
  const emptyBucket = (): void =>
    delivery.budgets.observe(CHANNEL, { limit: 5, remaining: 0, resetAfterMs: 5_000 });
  return { clock, target, delivery, emptyBucket };
}

/** A member message in a guild channel; its channel is never read: `targetOf` gives the target. */
function memberMessage(authorId = 'member-1'): NoticeSubject {
  return {
    id: MEMBER_MESSAGE,
    author: { id: authorId },
    guild: { preferredLocale: 'en-US' },
    channel: undefined as unknown as Message['channel'],
  } as NoticeSubject;
}

describe('the delivery port', () => {
  it('holds a member notice until the channel has a write token, then retries it after a 5xx', async () => {
    const { clock, target, delivery, emptyBucket } = port();
    const notices = new MemberNotices({
      clock,
      logger: silentLogger,
      delivery,
      targetOf: () => target,
    });
    emptyBucket();
    target.failNext('send', 'transient');
    const telling = notices.tell(memberMessage(), { kind: 'queue_full' }, undefined);
    await settle();
    expect(target.refused).toHaveLength(0);
    expect(target.writes).toHaveLength(0);

    await clock.advance(5_000);
    expect(target.refused).toHaveLength(1);
    expect(target.writes).toHaveLength(0);

    await clock.advance(1_000);
    await telling;
    expect(target.writes).toHaveLength(1);
    const [refused] = target.refused;
    const [written] = target.writes;
    expect(written?.kind === 'send' && written.message).toMatchObject({
      content: "I'm still answering earlier messages here. Please wait a moment and ask again.",
      replyTo: MEMBER_MESSAGE,
      allowedMentions: { parse: [], repliedUser: false },
    });
    // The retry is the same create: Discord's enforce_nonce makes a repeat post nothing twice.
    expect(written?.kind === 'send' && written.message.nonce).toBe(
      refused?.kind === 'send' ? refused.message.nonce : 'no refused create',
    );
    expect(written?.kind === 'send' && written.message.nonce).toEqual(expect.any(String));
  });

  it('gives up a notice Discord refuses for good, without retrying it', async () => {
    const { clock, target, delivery } = port();
    const notices = new MemberNotices({
      clock,
      logger: silentLogger,
      delivery,
      targetOf: () => target,
    });
    target.failNext('send', 'forbidden');
    await notices.tell(memberMessage(), { kind: 'storage_trouble' }, undefined);
    await clock.advance(10_000);
    expect(target.refused).toHaveLength(1);
    expect(target.writes).toHaveLength(0);
  });

  it('paces and retries a failure notice like the reply it stands for', async () => {
    const { clock, target, delivery, emptyBucket } = port();
    emptyBucket();
    target.failNext('send', 'rate_limited');
    const posting = postFailureNotice({
      error: new ProviderError({ kind: 'overloaded', message: 'upstream said 529' }),
      replyTo: MEMBER_MESSAGE,
      writer: delivery.to(target),
      locale: 'ja',
      logger: silentLogger,
    });
    await settle();
    expect(target.refused).toHaveLength(0);
    await clock.advance(5_000);
    expect(target.refused).toHaveLength(1);
    await clock.advance(1_000);
    await posting;
    const [written] = target.writes;
    expect(written?.kind === 'send' && written.message.components).toEqual([
      { customId: `retry:${MEMBER_MESSAGE}`, label: '再試行' },
    ]);
    expect(written?.kind === 'send' && written.message.content).toContain('混み合っています');
  });

  it('sends every create and edit with explicit allowed mentions: reply, status, notices', async () => {
    const { clock, target, delivery } = port();
    const sink = new DiscordSink({
      writer: delivery.to(target),
      typing: new TypingAllowance(clock),
      clock,
      logger: silentLogger,
      allowedMentions: allowedMentionsFor({ allowUserMentions: true }),
      replyTo: MEMBER_MESSAGE,
      limit: 2000,
      gapNotice: '-# gap',
      stopButton: { customId: 'stop-reply:1', label: 'Stop' },
    });
    sink.updateCurrent('Hello');
    await settle();
    sink.setStatus('-# Using `search`…');
    await settle();
    sink.updateCurrent('Hello there, <@123>');
    sink.setStatus(undefined);
    await clock.advance(1_000);
    await sink.flush();
    await postFailureNotice({
      error: new Error('boom'),
      replyTo: MEMBER_MESSAGE,
      writer: delivery.to(target),
      locale: 'en',
      logger: silentLogger,
    });
    const notices = new MemberNotices({
      clock,
      logger: silentLogger,
      delivery,
      targetOf: () => target,
    });
    await notices.tell(memberMessage(), { kind: 'member_rate_limited', seconds: 3 }, undefined);

    const writes = target.contentWrites();
    expect(writes.filter((write) => write.kind === 'send').length).toBeGreaterThanOrEqual(4);
    expect(writes.filter((write) => write.kind === 'edit').length).toBeGreaterThanOrEqual(1);
    for (const write of writes) {
      const mentions =
        write.kind === 'send' ? write.message.allowedMentions : write.edit.allowedMentions;
      expect(Array.isArray(mentions.parse)).toBe(true);
      expect(mentions.parse).not.toContain('everyone');
      expect(mentions.parse).not.toContain('roles');
      expect(mentions.repliedUser).toBe(false);
    }
  });

  it('abandons a write whose retry would come after its signal aborted', async () => {
    const { clock, target, delivery } = port();
    const stop = new AbortController();
    target.failNext('send', 'transient');
    const posting = delivery
      .to(target)
      .post(
        { content: 'late', allowedMentions: allowedMentionsFor({ allowUserMentions: false }) },
        stop.signal,
      );
    await settle();
    stop.abort();
    await clock.advance(5_000);
    expect(await posting).toEqual({ kind: 'abandoned' });
    expect(target.writes).toHaveLength(0);
  });

  it('tells its listeners each write Discord confirmed, and none it refused', async () => {
    const { target, delivery } = port();
    const heard: unknown[] = [];
    const stop = delivery.onWritten((write) => heard.push(write));
    const writer = delivery.to(target);
    const mentions = allowedMentionsFor({ allowUserMentions: false });
    target.failNext('send', 'other');
    await expect(
      writer.create({ content: 'refused', allowedMentions: mentions }),
    ).rejects.toThrow();
    const id = await writer.create({ content: 'hello', allowedMentions: mentions, replyTo: 'm1' });
    await writer.edit(id, { content: 'hello again', allowedMentions: mentions });
    await writer.delete(id);
    stop();
    await writer.create({ content: 'unheard', allowedMentions: mentions });
    expect(heard).toEqual([
      {
        kind: 'created',
        channelId: CHANNEL,
        messageId: id,
        message: { content: 'hello', allowedMentions: mentions, replyTo: 'm1' },
      },
      { kind: 'edited', channelId: CHANNEL, messageId: id, content: 'hello again' },
      { kind: 'deleted', channelId: CHANNEL, messageId: id },
    ]);
  });
});
