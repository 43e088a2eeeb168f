/**
 * /config end to end through the real bot process, the loopback Discord
 * and the LLM stand-in: who may use /config, an admin setting provider, model, key and persona
 * that the next mention uses, a refused key, DM isolation, trigger words and auto-reply.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { MessageFlags, PermissionFlagsBits } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScopeSettings } from '../../src/db/scope-settings-repository.ts';
import type { FakeDiscord } from '../fake-discord/fake-discord.ts';
import { modelLookup } from '../support/llm-stand-in/model-routes.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startHarness, TEST_API_KEY, waitForTurn, type BotHarness } from './support/bot-harness.ts';
import { chatRequests } from './support/chat-requests.ts';
import { commandsRegistered } from './support/slash-commands.ts';

/** How replies name the provider: the harness's OpenAI is the stand-in, an operator's own server. */
function openAIServer(llm: { openAIBaseUrl: string }, locale: 'en' | 'ja' = 'en'): string {
  const host = new URL(llm.openAIBaseUrl).host;
  return locale === 'en'
    ? `the OpenAI-compatible server at ${host}`
    : `${host} のOpenAI互換サーバー`;
}

const SERVER_KEY = 'sk-server-own-key-4f1c9a0e7b3d5e2a';
const REFUSED_KEY = 'sk-refused-key-9d8c7b6a5f4e3d2c';
const PERSONA_INSTRUCTIONS = 'You are Mika, a retired pirate who answers in sea shanties.';
const DM_PERSONA_INSTRUCTIONS = 'You are Kumo, a sleepy cloud who speaks softly.';

function buildWorld(discord: FakeDiscord) {
  const admin = discord.createUser({ username: 'admin' });
  // A second admin: one admin's burst of /config would meet the config cooldown.
  const moderator = discord.createUser({ username: 'moderator' });
  const member = discord.createUser({ username: 'member' });
  const guild = discord.createGuild({ name: 'Harbour' });
  const managers = discord.createRole({
    guildId: guild.id,
    name: 'Managers',
    permissions: PermissionFlagsBits.ManageGuild,
  });
  discord.addMember({ guildId: guild.id, userId: admin.id, roleIds: [managers.id] });
  discord.addMember({ guildId: guild.id, userId: moderator.id, roleIds: [managers.id] });
  discord.addMember({ guildId: guild.id, userId: member.id });
  const general = discord.createChannel({ guildId: guild.id, name: 'general' });
  const lounge = discord.createChannel({ guildId: guild.id, name: 'lounge' });
  const other = discord.createGuild({ name: 'Other', ownerId: admin.id });
  const otherChannel = discord.createChannel({ guildId: other.id, name: 'other-general' });
  discord.addMember({ guildId: other.id, userId: member.id });
  return { admin, moderator, member, guild, general, lounge, other, otherChannel };
}

type World = ReturnType<typeof buildWorld>;

/** Every file under `directory`, for scanning the embedded database's files. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe('configuration commands', () => {
  let harness: BotHarness<World>;

  beforeAll(async () => {
    harness = await startHarness({ setup: buildWorld });
    harness.llm.handle(() => textScript('Ahoy!'));
    await commandsRegistered(harness.discord, harness.bot);
  });
  afterAll(() => harness.dispose());

  /** Invokes a command as `userId` and returns the reply the user finally sees. */
  async function run(
    input: Parameters<FakeDiscord['invokeSlashCommand']>[0],
  ): Promise<{ content: string; ephemeral: boolean }> {
    const reply = await harness.discord.invokeSlashCommand(input).waitForOriginal();
    return {
      content: reply.content,
      ephemeral: ((reply.flags ?? 0) & MessageFlags.Ephemeral) !== 0,
    };
  }

  it('hides /config, /trigger and /autoreply behind Manage Server and refuses a member at run time', async () => {
    const { discord, world } = harness;
    for (const name of ['config', 'trigger', 'autoreply']) {
      const definition = discord.commands().find((command) => command.name === name);
      expect(definition?.default_member_permissions, name).toBe(
        PermissionFlagsBits.ManageGuild.toString(),
      );
    }
    const base = { userId: world.member.id, channelId: world.general.id, command: 'config' };
    expect(() => discord.invokeSlashCommand({ ...base, subcommand: 'show' })).toThrow(
      /hides \/config/,
    );
    const refused = await run({
      ...base,
      subcommand: 'provider',
      options: { name: 'anthropic' },
      bypassDefaultMemberPermissions: true,
    });
    expect(refused.content).toContain('**Manage Server**');
    expect(refused.ephemeral).toBe(true);
    const shown = await harness.discord
      .invokeSlashCommand({ ...base, userId: world.admin.id, subcommand: 'show' })
      .waitForOriginal();
    const provider = shown.embeds?.[0]?.fields?.find((field) => field.name === 'Provider');
    expect(provider?.value).toBe(`${openAIServer(harness.llm)} (default)`);
  });

  it('lets an admin set provider, model, key and persona, and the next mention uses them', async () => {
    const { discord, llm, bot, world } = harness;
    const admin = { userId: world.admin.id, channelId: world.general.id, command: 'config' };
    expect(
      (await run({ ...admin, subcommand: 'provider', options: { name: 'openai' } })).content,
    ).toBe(`Provider: **${openAIServer(llm)}**, model \`gpt-5.4-mini\`.`);

    llm.listModels(['llama3.1:8b', 'qwen3:14b', 'gpt-5.4-nano']);
    const suggestions = discord.interactions.autocomplete({
      ...admin,
      subcommand: 'model',
      options: { name: 'QWEN' },
      focused: 'name',
    });
    await suggestions.response();
    expect(suggestions.choices()?.map((choice) => choice.value)).toEqual(['QWEN', 'qwen3:14b']);

    const model = await run({ ...admin, subcommand: 'model', options: { name: 'gpt-5.4-nano' } });
    expect(model.content).toBe(`Model: \`gpt-5.4-nano\` (${openAIServer(llm)}).`);

    const keyForm = discord.invokeSlashCommand({
      ...admin,
      subcommandGroup: 'apikey',
      subcommand: 'set',
    });
    await keyForm.response();
    expect(keyForm.modal()?.custom_id).toBe('config:apikey');
    const keySaved = await keyForm.submitModal({ key: ` ${SERVER_KEY} ` }).waitForOriginal();
    expect(keySaved.content).toBe(
      `Key saved for **${openAIServer(llm)}**; it works with \`gpt-5.4-nano\`. It is stored encrypted.`,
    );
    const check = llm.requests.findLast((request) => request.url.includes('/models/'));
    expect(check).toMatchObject({ method: 'GET', model: 'gpt-5.4-nano', apiKey: SERVER_KEY });

    const personaForm = discord.invokeSlashCommand({ ...admin, subcommand: 'persona' });
    await personaForm.response();
    const prefilled = JSON.stringify(personaForm.modal()?.components);
    expect(prefilled).toContain('"value":"Tomo"');
    const personaSaved = await personaForm
      .submitModal({ name: 'Mika', instructions: PERSONA_INSTRUCTIONS })
      .waitForOriginal();
    expect(personaSaved.content).toContain('Persona saved: **Mika**.');

    const before = chatRequests(llm.requests).length;
    const mention = discord.postMessage({
      authorId: world.member.id,
      channelId: world.general.id,
      content: `<@${discord.botUserId}> sing me something`,
    });
    await waitForTurn(bot, mention.id);
    const request = chatRequests(llm.requests)[before];
    expect(request?.model).toBe('gpt-5.4-nano');
    expect(request?.apiKey).toBe(SERVER_KEY);
    expect(request?.systemText).toContain(`You are Mika. ${PERSONA_INSTRUCTIONS}`);
    const answers = discord.requests({ route: /^\/(interactions|webhooks)\// });
    expect(answers.length).toBeGreaterThan(5);
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain(SERVER_KEY);
  });

  it('refuses a key the provider rejects, in Japanese for a Japanese client, and stores nothing', async () => {
    const { discord, llm, bot, world } = harness;
    llm.handleModelLookups(modelLookup({ acceptedKeys: [TEST_API_KEY, SERVER_KEY] }));
    const form = discord.invokeSlashCommand({
      userId: world.admin.id,
      channelId: world.otherChannel.id,
      command: 'config',
      subcommandGroup: 'apikey',
      subcommand: 'set',
      locale: 'ja',
    });
    await form.response();
    expect(form.modal()?.title).toBe(`${new URL(llm.openAIBaseUrl).host} のAPIキー`);
    const refused = await form.submitModal({ key: REFUSED_KEY }).waitForOriginal();
    expect(refused.content).toBe(
      `**${openAIServer(llm, 'ja')}** がこのキーを拒否しました。何も保存していません。`,
    );

    const before = chatRequests(llm.requests).length;
    const mention = discord.postMessage({
      authorId: world.admin.id,
      channelId: world.otherChannel.id,
      content: `<@${discord.botUserId}> which key pays?`,
    });
    await waitForTurn(bot, mention.id);
    expect(chatRequests(llm.requests)[before]?.apiKey).toBe(TEST_API_KEY);
    const shown = await discord
      .invokeSlashCommand({
        userId: world.admin.id,
        channelId: world.otherChannel.id,
        command: 'config',
        subcommand: 'show',
        locale: 'ja',
      })
      .waitForOriginal();
    expect(shown.embeds?.[0]?.title).toBe('このサーバーの設定');
    const key = shown.embeds?.[0]?.fields?.find((field) => field.name === 'APIキー');
    expect(key?.value).toBe('未設定：ボット運営者のキーを使用');
    llm.handleModelLookups(modelLookup());
  });

  it('keeps a persona set in DMs apart from every guild, and the guild’s from the DM', async () => {
    const { discord, llm, bot, world } = harness;
    const dm = discord.openDirectMessage(world.member.id);
    const form = discord.invokeSlashCommand({
      userId: world.member.id,
      channelId: dm.id,
      command: 'config',
      subcommand: 'persona',
    });
    await form.response();
    await form
      .submitModal({ name: 'Kumo', instructions: DM_PERSONA_INSTRUCTIONS })
      .waitForOriginal();

    const beforeDm = chatRequests(llm.requests).length;
    const dmMessage = discord.postMessage({
      authorId: world.member.id,
      channelId: dm.id,
      content: 'are you there?',
    });
    await waitForTurn(bot, dmMessage.id);
    const dmRequest = chatRequests(llm.requests)[beforeDm];
    expect(dmRequest?.systemText).toContain(`You are Kumo. ${DM_PERSONA_INSTRUCTIONS}`);
    expect(dmRequest?.systemText).not.toContain('Mika');
    expect(dmRequest?.apiKey).toBe(TEST_API_KEY);

    for (const channel of [world.general, world.otherChannel]) {
      const before = chatRequests(llm.requests).length;
      const mention = discord.postMessage({
        authorId: world.member.id,
        channelId: channel.id,
        content: `<@${discord.botUserId}> who are you?`,
      });
      await waitForTurn(bot, mention.id);
      expect(chatRequests(llm.requests)[before]?.systemText).not.toContain('Kumo');
    }
  });

  it('answers a message with a trigger word, and every message in an auto-reply channel', async () => {
    const { discord, bot, world } = harness;
    const admin = { userId: world.moderator.id, channelId: world.general.id };
    const added = await run({
      ...admin,
      command: 'trigger',
      subcommand: 'add',
      options: { word: 'c++' },
    });
    expect(added.content).toBe('I will answer messages containing `c++`. Trigger words: 1/20.');
    const duplicate = await run({
      ...admin,
      command: 'trigger',
      subcommand: 'add',
      options: { word: 'C++' },
    });
    expect(duplicate.content).toBe('`C++` is already a trigger word.');
    const triggered = discord.postMessage({
      authorId: world.member.id,
      channelId: world.general.id,
      content: 'does anyone here know C++ templates?',
    });
    await waitForTurn(bot, triggered.id);

    const autoReply = await run({
      ...admin,
      command: 'autoreply',
      subcommand: 'add',
      options: { channel: world.lounge.id },
    });
    expect(autoReply.content).toBe(`I will answer every message in <#${world.lounge.id}>.`);
    const unaddressed = discord.postMessage({
      authorId: world.member.id,
      channelId: world.lounge.id,
      content: 'nice weather today',
    });
    await waitForTurn(bot, unaddressed.id);
    expect(discord.pings().filter((ping) => ping.authorId === discord.botUserId)).toEqual([]);
  });

  it('keeps the key out of the database files and the bot’s logs', async () => {
    const { bot, dataDir, world } = harness;
    expect(await bot.stop()).toEqual({ code: 0, signal: null });
    // The embedded database's files are in DATA_DIR (a server's are not ours to read): the scan
    // can see what it stores in plain text — the persona is there.
    const files = harness.database.kind === 'pglite' ? filesUnder(dataDir) : [];
    const persona = Buffer.from(PERSONA_INSTRUCTIONS);
    if (harness.database.kind === 'pglite') {
      expect(files.some((file) => readFileSync(file).includes(persona))).toBe(true);
    }
    for (const secret of [SERVER_KEY, REFUSED_KEY]) {
      expect(bot.output()).not.toContain(secret);
      const needles = [secret, Buffer.from(secret).toString('base64')].map((needle) =>
        Buffer.from(needle),
      );
      for (const file of files) {
        const bytes = readFileSync(file);
        for (const needle of needles) expect(bytes.includes(needle), file).toBe(false);
      }
    }
    await harness.withDatabase(async (db) => {
      const settings = await loadScopeSettings(db, world.guild.id);
      expect(settings.apiKeyCiphertext).toBeDefined();
      expect(settings.apiKeyCiphertext).not.toContain(SERVER_KEY);
    });
  });
});
