/**
 * Characters' messages through channel webhooks, as the bot writes them (ChannelWebhooks,
 * WebhookMessageTarget, the DeliveryPort) with discord.js's REST client against the loopback
 * Discord: one webhook per channel, threads, Unknown Webhook, no Manage Webhooks, and pacing
 * on the webhook's rate-limit headers.
 */
import { REST } from 'discord.js';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { observeRateLimits } from '../../src/bot/bot-event-wiring.ts';
import { ChannelWebhooks } from '../../src/bot/delivery/channel-webhooks.ts';
import { DeliveryPort } from '../../src/bot/delivery/delivery-port.ts';
import { NamedMessageTarget } from '../../src/bot/delivery/named-message-target.ts';
import type { TargetWriteError } from '../../src/bot/delivery/message-target.ts';
import { WebhookMessageTarget } from '../../src/bot/delivery/webhook-message-target.ts';
import { systemClock } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { DEFAULT_BOT_PERMISSIONS } from '../fake-discord/rules/default-permissions.ts';
import { RecordingTarget } from '../support/recording-target.ts';

const NO_PINGS = { parse: [], repliedUser: false };

let discord: FakeDiscord;
let rest: REST;
let webhookRest: REST;
let guildId: string;
let channelId: string;
let webhooks: ChannelWebhooks;

beforeEach(async () => {
  discord = await startFakeDiscord({ rateLimitTimeScale: 0.05 });
  guildId = discord.createGuild({
    botPermissions: DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.ManageWebhooks,
  }).id;
  channelId = discord.createChannel({ guildId, name: 'inn' }).id;
  rest = new REST({ api: discord.apiUrl, retries: 0 }).setToken(discord.token);
  webhookRest = new REST({ api: discord.apiUrl, retries: 0 });
  webhooks = new ChannelWebhooks({
    rest,
    webhookRest,
    applicationId: discord.applicationId,
    logger: silentLogger,
  });
});

afterEach(async () => {
  for (const each of [rest, webhookRest]) {
    each.clearHashSweeper();
    each.clearHandlerSweeper();
  }
  await discord.close();
});

function target(name: string, options: { channel?: string; webhookChannel?: string } = {}) {
  const voice = { characterId: `id-${name}`, name, avatarUrl: `https://example.test/${name}.png` };
  const posted: string[] = [];
  const bot = new RecordingTarget(options.channel ?? channelId);
  const character = new WebhookMessageTarget({
    rest,
    webhookRest,
    clock: systemClock,
    webhooks,
    voice,
    channelId: options.channel ?? channelId,
    webhookChannelId: options.webhookChannel ?? channelId,
    fallback: new NamedMessageTarget(bot, voice),
    onPosted: (messageId) => posted.push(messageId),
  });
  return { character, bot, posted };
}

describe('characters through the channel webhook', () => {
  it('shares one webhook per channel among characters, each under its own name', async () => {
    const alice = target('Alice');
    const bob = target('Bob');
    const first = await alice.character.send({ content: 'Welcome!', allowedMentions: NO_PINGS });
    const second = await bob.character.send({ content: 'A song!', allowedMentions: NO_PINGS });
    expect(discord.webhooks(channelId)).toHaveLength(1);
    expect(discord.message(first)?.author.username).toBe('Alice');
    expect(discord.message(second)?.author.username).toBe('Bob');
    expect(alice.posted).toEqual([first]);
    await alice.character.edit(first, { content: 'Welcome, all!', allowedMentions: NO_PINGS });
    expect(discord.message(first)?.content).toBe('Welcome, all!');
    await alice.character.delete(first);
    expect(discord.message(first)).toBeUndefined();
    const edits = discord.requests({ method: 'PATCH' });
    expect(edits.map((entry) => entry.body)).toEqual([
      { content: 'Welcome, all!', allowed_mentions: { parse: [], replied_user: false } },
    ]);
  });

  it('posts in a thread through its parent channel’s webhook with thread_id', async () => {
    const member = discord.createUser({ username: 'member' }).id;
    discord.addMember({ guildId, userId: member });
    const thread = discord.createThread({ parentId: channelId, name: 'side', ownerId: member }).id;
    const { character } = target('Alice', { channel: thread });
    const id = await character.send({ content: 'In the thread.', allowedMentions: NO_PINGS });
    expect(discord.message(id)?.channel_id).toBe(thread);
    expect(discord.webhooks(channelId)).toHaveLength(1);
    const execute = discord
      .requests({ method: 'POST', route: '/webhooks/:webhookId/:token' })
      .at(-1);
    expect(execute?.query).toEqual({ wait: 'true', thread_id: thread });
  });

  it('makes the webhook again after Unknown Webhook; the old one’s messages are gone', async () => {
    const { character } = target('Alice');
    const before = await character.send({ content: 'one', allowedMentions: NO_PINGS });
    const [old] = discord.webhooks(channelId);
    discord.deleteWebhook(old?.id ?? '');
    const after = await character.send({ content: 'two', allowedMentions: NO_PINGS });
    expect(discord.message(after)?.content).toBe('two');
    expect(discord.webhooks(channelId).map((webhook) => webhook.id)).not.toContain(old?.id);
    const failure = await character
      .edit(before, { content: 'edited', allowedMentions: NO_PINGS })
      .catch((error: unknown) => error as TargetWriteError);
    expect(failure).toMatchObject({ failure: 'gone' });
  });

  it('speaks through the bot, headed by the name, without Manage Webhooks', async () => {
    const bare = discord.createGuild().id;
    const plain = discord.createChannel({ guildId: bare, name: 'plain' }).id;
    const { character, bot } = target('Alice', { channel: plain, webhookChannel: plain });
    const id = await character.send({ content: 'Hello.', allowedMentions: NO_PINGS });
    await character.edit(id, { content: 'Hello again.', allowedMentions: NO_PINGS });
    expect(
      bot.writes.map((write) =>
        write.kind === 'send'
          ? write.message.content
          : write.kind === 'edit'
            ? write.edit.content
            : write.kind,
      ),
    ).toEqual(['**Alice**\nHello.', '**Alice**\nHello again.']);
    expect(discord.webhooks(plain)).toEqual([]);
  });

  it('paces a burst on the webhook’s rate-limit headers: no 429', async () => {
    const delivery = new DeliveryPort({
      clock: systemClock,
      logger: silentLogger,
      retryDelaysMs: [],
    });
    observeRateLimits(rest, delivery.budgets, webhooks);
    const writer = delivery.to(target('Alice').character);
    const outcomes = [];
    for (let index = 0; index < 12; index += 1) {
      outcomes.push(await writer.post({ content: `line ${index}`, allowedMentions: NO_PINGS }));
    }
    expect(outcomes.every((outcome) => outcome.kind === 'written')).toBe(true);
    expect(discord.requests({ status: 429 })).toEqual([]);
    // The webhook's headers taught one budget, the webhook's (not the channel's messages').
    expect(delivery.budgets.size).toBe(1);
  });
});

describe('a webhook create whose answer was lost', () => {
  const EXECUTE = { method: 'POST', route: '/webhooks/:webhookId/:token' } as const;

  /** A character's writer on the one write path, retrying at once (no real waits). */
  function writerFor(name: string) {
    const delivery = new DeliveryPort({
      clock: systemClock,
      logger: silentLogger,
      retryDelaysMs: [0, 0],
    });
    const made = target(name);
    return { ...made, writer: delivery.to(made.character) };
  }

  function linesIn(content: string) {
    return discord.readChannel(channelId).filter((message) => message.content === content);
  }

  it('is found in the channel when the write took effect: posted once, not twice', async () => {
    const { writer, posted } = writerFor('Alice');
    await writer.post({ content: 'Warm-up.', allowedMentions: NO_PINGS });
    discord.faults.failAfterWrite({ ...EXECUTE, status: 502, times: 1 });
    const outcome = await writer.post({ content: 'Only once.', allowedMentions: NO_PINGS });
    const lines = linesIn('Only once.');
    expect(lines).toHaveLength(1);
    expect(outcome).toEqual({ kind: 'written', value: lines[0]?.id });
    expect(posted.at(-1)).toBe(lines[0]?.id);
    expect(discord.requests(EXECUTE).map((entry) => entry.status)).toEqual([200, 502]);
    expect(
      discord.requests({ method: 'GET', route: '/channels/:channelId/messages' }),
    ).toHaveLength(1);
  });

  it('is sent again when the failure came before the write: posted once', async () => {
    const { writer } = writerFor('Alice');
    discord.faults.failRoute({ ...EXECUTE, status: 503, times: 1 });
    const outcome = await writer.post({ content: 'Second try.', allowedMentions: NO_PINGS });
    expect(outcome.kind).toBe('written');
    expect(linesIn('Second try.')).toHaveLength(1);
    expect(discord.requests(EXECUTE).map((entry) => entry.status)).toEqual([503, 200]);
  });

  it('is not sent again when the channel cannot be read to look for it', async () => {
    const { writer } = writerFor('Alice');
    discord.faults.failAfterWrite({ ...EXECUTE, times: 1 });
    discord.faults.refuseRoute({ method: 'GET', route: '/channels/:channelId/messages' });
    const outcome = await writer.post({ content: 'Maybe posted.', allowedMentions: NO_PINGS });
    expect(outcome).toMatchObject({ kind: 'failed', failure: { failure: 'other' } });
    expect(linesIn('Maybe posted.')).toHaveLength(1);
    expect(discord.requests(EXECUTE)).toHaveLength(1);
  });
});
