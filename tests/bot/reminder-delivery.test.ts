/**
 * DiscordToolActions as the reminder delivery, through the real discord.js client against the
 * loopback Discord: it pings only the owner, confirms its claim right before the send, and
 * honours its abort signal before and during the send.
 */
import type { Client } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordToolActions } from '../../src/bot/delivery/discord-tool-actions.ts';
import { DeliveryPort } from '../../src/bot/delivery/delivery-port.ts';
import { systemClock } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { Reminder } from '../../src/db/reminder-repository.ts';
import { ReminderClaimLostError } from '../../src/tools/reminders/reminder-scheduler.ts';
import { connectClient } from '../fake-discord/discord-js-harness.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';

describe('reminder delivery on Discord', () => {
  let discord: FakeDiscord;
  let client: Client<true>;
  let channelId: string;
  let reminder: Reminder;

  beforeAll(async () => {
    discord = await startFakeDiscord();
    const guild = discord.createGuild({ name: 'Test' });
    channelId = discord.createChannel({ guildId: guild.id, name: 'general' }).id;
    const alice = discord.createUser({ username: 'alice' });
    discord.addMember({ guildId: guild.id, userId: alice.id });
    const asked = discord.postMessage({ authorId: alice.id, channelId, content: 'remind me' });
    reminder = {
      id: '00000000-0000-4000-8000-000000000001',
      scopeId: guild.id,
      channelId,
      userId: alice.id,
      messageId: asked.id,
      content: 'stretch @everyone',
      dueAt: new Date(),
      status: 'claimed',
      attempts: 1,
    };
    client = await connectClient(discord);
  });
  afterAll(async () => {
    await client?.destroy();
    await discord?.close();
  });

  const delivery = new DeliveryPort({ clock: systemClock, logger: silentLogger });
  const posts = () => discord.requests({ method: 'POST', route: '/channels/:channelId/messages' });

  it('confirms the claim, then posts a reply that pings the owner and nobody else', async () => {
    const actions = new DiscordToolActions(client, delivery);
    const order: string[] = [];
    const before = posts().length;
    await actions.deliver(reminder, {
      signal: new AbortController().signal,
      claim: {
        confirm: () => {
          order.push(`confirm after ${posts().length - before} posts`);
          return Promise.resolve();
        },
      },
    });
    expect(order).toEqual(['confirm after 0 posts']);
    expect(posts()).toHaveLength(before + 1);
    const pings = discord.pings().filter((ping) => ping.channelId === channelId);
    expect(pings.at(-1)).toMatchObject({
      everyone: false,
      userIds: [reminder.userId],
      roleIds: [],
      repliedUser: false,
      allowedMentionsSent: true,
    });
    expect(posts().at(-1)?.body).toMatchObject({
      content: `⏰ <@${reminder.userId}> stretch @everyone`,
      message_reference: { message_id: reminder.messageId },
      allowed_mentions: { parse: [], users: [reminder.userId], replied_user: false },
    });
  });

  it('sends nothing when the claim was taken over, or when already aborted', async () => {
    const actions = new DiscordToolActions(client, delivery);
    const before = posts().length;
    await expect(
      actions.deliver(reminder, {
        signal: new AbortController().signal,
        claim: { confirm: () => Promise.reject(new ReminderClaimLostError(reminder.id)) },
      }),
    ).rejects.toBeInstanceOf(ReminderClaimLostError);
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      actions.deliver(reminder, {
        signal: aborted.signal,
        claim: { confirm: () => Promise.resolve() },
      }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(posts()).toHaveLength(before);
  });

  it('abandons a send that Discord is slow to answer when aborted', async () => {
    const actions = new DiscordToolActions(client, delivery);
    discord.faults.slowRoute({ route: /\/channels\/\d+\/messages$/, delayMs: 15_000, times: 1 });
    const abort = new AbortController();
    const delivering = actions.deliver(reminder, {
      signal: abort.signal,
      claim: {
        confirm: () => {
          setTimeout(() => abort.abort(), 50); // once the request is on its way
          return Promise.resolve();
        },
      },
    });
    // Unfixed, this waits out the slow answer (15 s) and resolves.
    await expect(delivering).rejects.toMatchObject({ name: 'AbortError' });
  });
});
