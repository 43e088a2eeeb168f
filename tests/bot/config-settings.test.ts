/**
 * The other /config settings end to end — a provider change
 * that drops the old provider's key, live model checks (a local server's own list included),
 * settings the next message obeys (temperature, tools, language, budget), reset, and the
 * guild-only /trigger and /autoreply subcommands.
 */
import { MessageFlags, PermissionFlagsBits } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fake-discord/fake-discord.ts';
import { modelLookup } from '../support/llm-stand-in/model-routes.ts';
import type { RecordedRequest } from '../support/llm-stand-in/recorded-request.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startHarness, waitForTurn, type BotHarness } from './support/bot-harness.ts';
import {
  chatRequests,
  offeredToolDescription,
  offeredTools,
  toolResultTexts,
} from './support/chat-requests.ts';
import { commandsRegistered } from './support/slash-commands.ts';

/** How replies name the provider: the harness's OpenAI is the stand-in, an operator's own server. */
function openAIServer(llm: { openAIBaseUrl: string }, locale: 'en' | 'ja' = 'en'): string {
  const host = new URL(llm.openAIBaseUrl).host;
  return locale === 'en'
    ? `the OpenAI-compatible server at ${host}`
    : `${host} のOpenAI互換サーバー`;
}

const SERVER_KEY = 'sk-server-own-key-0a1b2c3d4e5f6a7b';

function buildWorld(discord: FakeDiscord) {
  const guild = discord.createGuild({ name: 'Workshop' });
  const managers = discord.createRole({
    guildId: guild.id,
    name: 'Managers',
    permissions: PermissionFlagsBits.ManageGuild,
  });
  const channel = discord.createChannel({ guildId: guild.id, name: 'general' });
  const member = discord.createUser({ username: 'member' });
  discord.addMember({ guildId: guild.id, userId: member.id });
  return { guild, managers, channel, member };
}

type World = ReturnType<typeof buildWorld>;

describe('configuration settings', () => {
  let harness: BotHarness<World>;

  beforeAll(async () => {
    harness = await startHarness({ setup: buildWorld });
    harness.llm.handle(() => textScript('Sure.'));
    await commandsRegistered(harness.discord, harness.bot);
  });
  afterAll(() => harness.dispose());

  /**
   * A fresh member holding Manage Server: each scenario gets its own, so a burst of /config
   * stays within one user's cooldown allowance.
   */
  let admins = 0;
  function newAdmin(): { userId: string; channelId: string; command: string } {
    const { discord, world } = harness;
    admins += 1;
    const user = discord.createUser({ username: `admin-${admins}` });
    discord.addMember({ guildId: world.guild.id, userId: user.id, roleIds: [world.managers.id] });
    return { userId: user.id, channelId: world.channel.id, command: 'config' };
  }

  async function reply(input: Parameters<FakeDiscord['invokeSlashCommand']>[0]): Promise<string> {
    const message = await harness.discord.invokeSlashCommand(input).waitForOriginal();
    expect((message.flags ?? 0) & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    return message.content;
  }

  async function showField(admin: ReturnType<typeof newAdmin>, name: string): Promise<string> {
    const shown = await harness.discord
      .invokeSlashCommand({ ...admin, subcommand: 'show' })
      .waitForOriginal();
    return shown.embeds?.[0]?.fields?.find((field) => field.name === name)?.value ?? '';
  }

  async function mention(content: string): Promise<RecordedRequest | undefined> {
    const { discord, llm, bot, world } = harness;
    const before = chatRequests(llm.requests).length;
    const message = discord.postMessage({
      authorId: world.member.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> ${content}`,
    });
    await waitForTurn(bot, message.id);
    return chatRequests(llm.requests)[before];
  }

  it('drops the old provider’s key and model when the provider changes, and says so', async () => {
    const admin = newAdmin();
    await reply({ ...admin, subcommand: 'model', options: { name: 'gpt-4.1' } });
    const form = harness.discord.invokeSlashCommand({
      ...admin,
      subcommandGroup: 'apikey',
      subcommand: 'set',
    });
    await form.response();
    await form.submitModal({ key: SERVER_KEY }).waitForOriginal();
    expect(await showField(admin, 'API key')).toBe('Set here (stored encrypted)');

    const changed = await reply({
      ...admin,
      subcommand: 'provider',
      options: { name: 'anthropic' },
    });
    expect(changed.split('\n')).toEqual([
      'Provider: **Anthropic Claude**, model `claude-sonnet-5-5`.',
      'The model went back to this provider’s default.',
      `The API key set here belonged to **${openAIServer(harness.llm)}** and was removed, so it is never sent to another provider.`,
      'There is no **Anthropic Claude** key to use yet: set one with `/config apikey set`.',
    ]);
    expect(await showField(admin, 'API key')).toBe(
      'Not set, and there is no other key: set one with `/config apikey set`',
    );
    expect(await reply({ ...admin, subcommand: 'provider', options: { name: 'default' } })).toBe(
      `Provider: the operator’s default, now **${openAIServer(harness.llm)}**, model \`gpt-5.4-mini\`.`,
    );
    expect((await mention('still there?'))?.apiKey).not.toBe(SERVER_KEY);
  });

  it('refuses a model the provider lacks, but takes one a local server lists', async () => {
    const { llm } = harness;
    const admin = newAdmin();
    llm.handleModelLookups(modelLookup({ knownModels: ['gpt-5.4-mini', 'gpt-4.1'] }));
    try {
      expect(await reply({ ...admin, subcommand: 'model', options: { name: 'gpt-9-turbo' } })).toBe(
        `**${openAIServer(harness.llm)}** has no model \`gpt-9-turbo\` that this key can use. Nothing was changed; pick one from the suggestions.`,
      );
      expect(await showField(admin, 'Model')).toBe('`gpt-5.4-mini` (default)');

      llm.listModels(['llama3.1:8b']);
      const local = await reply({
        ...admin,
        subcommand: 'model',
        options: { name: 'llama3.1:8b' },
      });
      expect(local.split('\n')[0]).toBe(`Model: \`llama3.1:8b\` (${openAIServer(harness.llm)}).`);
      expect(local).toContain('`MODEL_CATALOG`');
      expect((await mention('hello llama'))?.model).toBe('llama3.1:8b');
    } finally {
      llm.handleModelLookups(modelLookup());
      llm.listModels([]);
    }
  });

  it('applies temperature, tool switches, language and the daily budget to the next message', async () => {
    const { discord, world } = harness;
    const admin = newAdmin();
    await reply({ ...admin, subcommand: 'model', options: { name: 'gpt-4.1' } });
    expect(await reply({ ...admin, subcommand: 'temperature', options: { value: 0.3 } })).toBe(
      'Temperature set to **0.3**.',
    );
    const suggestions = discord.interactions.autocomplete({
      ...admin,
      subcommandGroup: 'tools',
      subcommand: 'disable',
      options: { name: 'time' },
      focused: 'name',
    });
    await suggestions.response();
    expect(suggestions.choices()?.map((choice) => choice.value)).toEqual(['current_time']);
    const before = await mention('what time is it?');
    expect(offeredTools(before)).toContain('current_time');
    expect(
      await reply({
        ...admin,
        subcommandGroup: 'tools',
        subcommand: 'disable',
        options: { name: 'current_time' },
      }),
    ).toBe('`current_time` (tool) is now **off** here.');

    const request = await mention('and now?');
    expect((request?.body as { temperature?: number }).temperature).toBe(0.3);
    expect(offeredTools(request)).not.toContain('current_time');
    expect(offeredTools(request)).toContain('remember_fact');

    await reply({ ...admin, subcommand: 'language', options: { value: 'ja' } });
    expect(await reply({ ...admin, subcommand: 'budget', options: { tokens: 1 } })).toBe(
      'Daily budgets (reset at 00:00 UTC) — server: **1 tokens a day**; each member: **unlimited**. See `/usage`.',
    );
    const notice = discord.waits.message({
      channelId: world.channel.id,
      authorId: discord.botUserId,
    });
    discord.postMessage({
      authorId: world.member.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> one more?`,
    });
    expect((await notice).content).toMatch(
      /^このサーバーは今日のAI予算を使い切りました（今日の使用：\$[\d.]+、[1-9][\d,]* トークン）。UTC 0:00（あと\d+(時間\d+)?分）にリセットされます。$/,
    );
    expect(await showField(admin, 'Daily budget')).toMatch(
      /^Spent today \(UTC\): \$[\d.]+ · [1-9][\d,]* tokens\nServer: 1 tokens a day\nEach member: unlimited\n/,
    );
  });

  it('resets every setting after the admin confirms with the button', async () => {
    const { discord } = harness;
    const admin = newAdmin();
    await reply({ ...admin, subcommand: 'humanizer', options: { level: 3 } });
    expect(await showField(admin, 'Humanizer')).toBe('Heavy: a message per sentence (3) (server)');
    const asked = discord.invokeSlashCommand({ ...admin, subcommand: 'reset' });
    const question = await asked.waitForOriginal();
    expect(question.content).toContain('**every** setting');
    await discord
      .pressButton({ userId: admin.userId, messageId: question.id, customId: 'config:reset' })
      .response();
    const done = await asked.waitForOriginal((message) => message.content.startsWith('Every'));
    expect(done.components ?? []).toEqual([]);
    expect(await showField(admin, 'Humanizer')).toBe('Light: a chatty style (1) (default)');
    expect(await showField(admin, 'Temperature')).toBe('the model’s default');
    expect(await showField(admin, 'Tools')).toContain('🟢 `current_time`');
    expect(await showField(admin, 'Daily budget')).toMatch(
      /Server: unlimited\nEach member: unlimited/,
    );
  });

  it('keeps /trigger and /autoreply to servers, and lists, removes and counts', async () => {
    const { discord, world } = harness;
    const admin = newAdmin();
    const dm = discord.openDirectMessage(admin.userId);
    expect(() =>
      discord.invokeSlashCommand({
        userId: admin.userId,
        channelId: dm.id,
        command: 'trigger',
        subcommand: 'list',
      }),
    ).toThrow(/not available in DMs/);

    const trigger = { ...admin, command: 'trigger' };
    await reply({ ...trigger, subcommand: 'add', options: { word: 'ｔｏｍｏ' } });
    expect(await reply({ ...trigger, subcommand: 'add', options: { word: '!!' } })).toBe(
      'A trigger word needs a letter or a digit and at most 50 characters.',
    );
    const choices = discord.interactions.autocomplete({
      ...trigger,
      subcommand: 'remove',
      options: { word: 'TO' },
      focused: 'word',
    });
    await choices.response();
    expect(choices.choices()?.map((choice) => choice.value)).toEqual(['tomo']);
    expect(await reply({ ...trigger, subcommand: 'remove', options: { word: 'TOMO' } })).toBe(
      '`TOMO` is no longer a trigger word.',
    );
    expect(await reply({ ...trigger, subcommand: 'list' })).toBe(
      'There are no trigger words here. Add one with `/trigger add`.',
    );

    const autoreply = { ...admin, command: 'autoreply' };
    expect(await reply({ ...autoreply, subcommand: 'every', options: { n: 3 } })).toBe(
      'I will answer one message in 3 in each channel, mention or not.',
    );
    expect(await reply({ ...autoreply, subcommand: 'list' })).toBe(
      'In every channel: one message in 3.',
    );
    expect(
      await reply({ ...autoreply, subcommand: 'remove', options: { channel: world.channel.id } }),
    ).toBe(`<#${world.channel.id}> is not an auto-reply channel.`);
    expect(await reply({ ...autoreply, subcommand: 'every', options: { n: 0 } })).toBe(
      'I no longer answer every Nth message.',
    );
  });

  it('tells the model the DM time zone is the member’s own, and the tool names the zone it used', async () => {
    const { discord, llm, bot } = harness;
    const admin = newAdmin();
    const dm = discord.openDirectMessage(admin.userId);
    const inDm = { userId: admin.userId, channelId: dm.id, command: 'config' };
    expect(
      await reply({ ...inDm, subcommand: 'timezone', options: { zone: 'Asia/Tokyo' } }),
    ).toContain('Asia/Tokyo');
    const before = chatRequests(llm.requests).length;
    llm.enqueue(
      {
        steps: [
          { type: 'tool-calls', calls: [{ id: 'call_1', name: 'current_time', arguments: '{}' }] },
          { type: 'finish', reason: 'tool_calls' },
        ],
      },
      textScript('It is evening in Tokyo.'),
    );
    const asked = discord.postMessage({
      authorId: admin.userId,
      channelId: dm.id,
      content: 'time?',
    });
    await waitForTurn(bot, asked.id);
    const [first, second] = chatRequests(llm.requests).slice(before);
    expect(offeredToolDescription(first, 'current_time')).toContain(
      "this member's own time zone (set with /config timezone in this DM; UTC if unset)",
    );
    expect(offeredToolDescription(first, 'set_reminder')).not.toContain('server');
    expect(toolResultTexts(second).join()).toContain('in Asia/Tokyo (UTC+09:00)');

    const mentioned = await mention('and here?');
    expect(offeredToolDescription(mentioned, 'current_time')).toContain("this server's time zone");
  });
});
