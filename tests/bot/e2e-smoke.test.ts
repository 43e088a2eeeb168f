import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startBot, type BotProcess } from '../support/scenario-runner.ts';

describe('the bot end to end (smoke)', () => {
  let discord: FakeDiscord;
  let llm: LlmStandIn;
  let bot: BotProcess;

  beforeAll(async () => {
    discord = await startFakeDiscord({ rateLimitTimeScale: 0.1, waitTimeoutMs: 60_000 });
    llm = await LlmStandIn.start();
    bot = startBot({
      discord,
      env: {
        OPENAI_BASE_URL: llm.openAIBaseUrl,
        OPENAI_API_KEY: 'sk-test-key',
        DEFAULT_MODEL: 'gpt-5.4-mini',
      },
    });
    await bot.waitUntilConnected();
  });
  afterAll(async () => {
    await bot.dispose();
    await llm.close();
    await discord.close();
  });

  it('answers a mention with a reply to the trigger', async () => {
    const guild = discord.createGuild({ name: 'Test' });
    const channel = discord.createChannel({ guildId: guild.id, name: 'general' });
    const alice = discord.createUser({ username: 'alice' });
    discord.addMember({ guildId: guild.id, userId: alice.id });
    llm.enqueue(textScript('Hello ', 'alice!'));
    const reply = discord.waits.message({ channelId: channel.id, authorId: discord.botUserId });
    const trigger = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> hi`,
    });
    const message = await reply;
    expect(message.content).toBe('Hello alice!');
    expect(message.message_reference?.message_id).toBe(trigger.id);
    expect(discord.pings().filter((ping) => ping.authorId === discord.botUserId)).toEqual([]);
    const request = llm.requests.at(-1);
    expect(request?.lastUserText).toContain('hi');
  });
});
