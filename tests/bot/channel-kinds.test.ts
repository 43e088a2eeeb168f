/**
 * Where the bot talks, end to end: in text and announcement channels, public and
 * private threads and forum posts; anywhere else it only says, when addressed, that it can't.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textScript } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';

describe('channel kinds', () => {
  let harness: BotHarness<ReturnType<typeof createWorld>>;

  beforeAll(async () => {
    harness = await startHarness({ setup: (discord) => createWorld(discord) });
  });
  afterAll(() => harness.dispose());

  async function expectAnswerIn(channelId: string, reply: string): Promise<void> {
    const { discord, llm, bot, world } = harness;
    llm.enqueue(textScript(reply));
    const trigger = discord.postMessage({
      authorId: world.alice.id,
      channelId,
      content: `<@${discord.botUserId}> are you there?`,
    });
    await waitForTurn(bot, trigger.id);
    const messages = botMessagesIn(discord, channelId);
    expect(messages.map((message) => message.content)).toEqual([reply]);
    expect(messages[0]?.message_reference?.message_id).toBe(trigger.id);
  }

  it('answers in a public thread', async () => {
    const { discord, world } = harness;
    const thread = discord.createThread({
      parentId: world.channel.id,
      name: 'ideas',
      ownerId: world.alice.id,
    });
    await expectAnswerIn(thread.id, 'Here in the thread.');
  });

  it('answers in a private thread it was added to', async () => {
    const { discord, world } = harness;
    const thread = discord.createThread({
      parentId: world.channel.id,
      name: 'secret',
      ownerId: world.alice.id,
      kind: 'private',
      memberIds: [world.alice.id, discord.botUserId],
    });
    await expectAnswerIn(thread.id, 'Here in private.');
  });

  it('answers in a forum post and in an announcement channel', async () => {
    const { discord, world } = harness;
    const forum = discord.createChannel({ guildId: world.guild.id, name: 'help', kind: 'forum' });
    const post = discord.createForumPost({
      forumId: forum.id,
      authorId: world.alice.id,
      name: 'How do I start?',
      content: 'First post of the thread',
    });
    await expectAnswerIn(post.threadId, 'Welcome to the forum.');
    const news = discord.createChannel({
      guildId: world.guild.id,
      name: 'news',
      kind: 'announcement',
    });
    await expectAnswerIn(news.id, 'News to me.');
  });

  it('only says it cannot chat in a voice channel’s text chat, and only when addressed', async () => {
    const { discord, llm, world } = harness;
    const voice = discord.createChannel({ guildId: world.guild.id, name: 'lounge', kind: 'voice' });
    const requestsBefore = llm.requests.length;
    discord.postMessage({ authorId: world.alice.id, channelId: voice.id, content: 'hello all' });
    const note = discord.waits.message({ channelId: voice.id, authorId: discord.botUserId });
    discord.postMessage({
      authorId: world.alice.id,
      channelId: voice.id,
      content: `<@${discord.botUserId}> hi`,
    });
    expect((await note).content).toMatch(/can't chat in this kind of channel/);
    expect(botMessagesIn(discord, voice.id)).toHaveLength(1);
    expect(llm.requests.length).toBe(requestsBefore);
  });
});
