/**
 * End to end: /memory's permissions (server memories need Manage Server, personal ones
 * are the caller's own, DMs are their own scope) and /doctor reporting a missing permission, a
 * rejected key and MCP server states with what to do.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PermissionFlagsBits, type APIEmbed } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelLookup } from '../support/llm-stand-in/model-routes.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { makeTemporaryFolder, removeTemporaryFolder } from '../support/test-resources.ts';
import {
  createWorld,
  startHarness,
  TEST_API_KEY,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';
import { commandsRegistered } from './support/slash-commands.ts';

function setup(discord: BotHarness['discord']) {
  const world = createWorld(discord);
  const admins = discord.createRole({
    guildId: world.guild.id,
    name: 'admins',
    permissions: PermissionFlagsBits.ManageGuild,
  });
  discord.build.updateMember({
    guildId: world.guild.id,
    userId: world.alice.id,
    roleIds: [admins.id],
  });
  const carol = discord.createUser({ username: 'carol' });
  discord.addMember({ guildId: world.guild.id, userId: carol.id });
  const locked = discord.createChannel({ guildId: world.guild.id, name: 'locked' });
  discord.setOverwrite({
    channelId: locked.id,
    targetId: discord.botUserId,
    type: 'member',
    deny: PermissionFlagsBits.AttachFiles | PermissionFlagsBits.EmbedLinks,
  });
  return { ...world, carol, locked };
}

function mcpConfigFile(directory: string): string {
  const file = path.join(directory, 'mcp.json');
  const stdioServer = path.resolve(import.meta.dirname, '../mcp-servers/stdio-server.ts');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        files: { command: process.execPath, args: [stdioServer] },
        // Nothing listens on port 9: the connection is refused and retried in the background.
        search: { url: 'http://127.0.0.1:9/mcp' },
      },
    }),
  );
  return file;
}

/** The lines of an embed field, by the field's (English) name. */
function field(embed: APIEmbed | undefined, name: string): string {
  const found = embed?.fields?.find((entry) => entry.name === name);
  if (found === undefined) throw new Error(`no field "${name}" in ${JSON.stringify(embed)}`);
  return found.value;
}

describe('/memory and /doctor', () => {
  let harness: BotHarness<ReturnType<typeof setup>>;
  const configFolder = makeTemporaryFolder('mcp-config-');

  beforeAll(async () => {
    harness = await startHarness({ setup, env: { MCP_CONFIG: mcpConfigFile(configFolder) } });
    await commandsRegistered(harness.discord, harness.bot);
  });
  afterAll(async () => {
    try {
      await harness?.dispose();
    } finally {
      removeTemporaryFolder(configFolder);
    }
  });

  function memory(userId: string, channelId: string, subcommand: string, options = {}) {
    return harness.discord.invokeSlashCommand({
      userId,
      channelId,
      command: 'memory',
      subcommand,
      options,
    });
  }

  async function forgettable(userId: string) {
    const { discord, world } = harness;
    const typing = discord.interactions.autocomplete({
      userId,
      channelId: world.channel.id,
      command: 'memory',
      subcommand: 'forget',
      options: { memory: '' },
      focused: 'memory',
    });
    await typing.response();
    return typing.choices() ?? [];
  }

  it('a member cannot add a server memory without Manage Server; personal memories are the caller’s own', async () => {
    const { discord, world, llm, bot } = harness;
    const general = world.channel.id;
    const refused = await memory(world.bob.id, general, 'add', {
      fact: 'Bob is the boss here',
      scope: 'server',
    }).waitForOriginal();
    expect(refused.content).toBe('You need the **Manage Server** permission to do this here.');

    const shared = await memory(world.alice.id, general, 'add', {
      fact: 'Our mascot is a red panda.',
      scope: 'server',
    }).waitForOriginal();
    expect(shared.content).toBe('Remembered (server): Our mascot is a red panda.');
    const own = await memory(world.bob.id, general, 'add', {
      fact: 'I drink   green tea every morning.',
    }).waitForOriginal();
    expect(own.content).toBe('Remembered (personal): I drink green tea every morning.');

    const aliceList = (await memory(world.alice.id, general, 'list').waitForOriginal()).embeds?.[0];
    expect(aliceList?.description).toContain(
      '**Server memories (1/50)**\n• Our mascot is a red panda.',
    );
    expect(aliceList?.description).toContain('**Your memories (0/20)**\n(none)');
    expect(aliceList?.description).not.toContain('green tea');
    const bobList = (await memory(world.bob.id, general, 'list').waitForOriginal()).embeds?.[0];
    expect(bobList?.description).toContain('red panda');
    expect(bobList?.description).toContain(
      '**Your memories (1/20)**\n• I drink green tea every morning.',
    );

    // Forget offers what the caller may make the bot forget: their own, and server memories
    // only to Manage Server (or the member who taught one).
    const aliceChoices = await forgettable(world.alice.id);
    expect(aliceChoices.map((choice) => choice.name)).toEqual(['🏠 Our mascot is a red panda.']);
    const bobChoices = await forgettable(world.bob.id);
    expect(bobChoices.map((choice) => choice.name)).toEqual([
      '👤 I drink green tea every morning.',
    ]);
    const serverId = String(aliceChoices[0]?.value);
    const bobsId = String(bobChoices[0]?.value);

    const notCarols = await memory(world.carol.id, general, 'forget', {
      memory: bobsId,
    }).waitForOriginal();
    expect(notCarols.content).toBe('I have no memory like that which you can make me forget.');
    const notShared = await memory(world.carol.id, general, 'forget', {
      memory: serverId,
    }).waitForOriginal();
    expect(notShared.content).toContain('**Manage Server**');

    // The model reads the server memory in anyone's turn, and never Bob's personal one in Alice's.
    llm.enqueue(textScript('A red panda!'));
    const question = discord.postMessage({
      authorId: world.alice.id,
      channelId: general,
      content: `<@${discord.botUserId}> what is our mascot?`,
    });
    await waitForTurn(bot, question.id);
    const request = JSON.stringify(llm.requests.at(-1)?.body);
    expect(request).toContain('Our mascot is a red panda.');
    expect(request).not.toContain('green tea');

    const forgotten = await memory(world.bob.id, general, 'forget', {
      memory: bobsId,
    }).waitForOriginal();
    expect(forgotten.content).toBe('Forgotten: I drink green tea every morning.');
    expect(await forgettable(world.bob.id)).toEqual([]);
  });

  it('keeps DM memories personal and apart from every guild', async () => {
    const { discord } = harness;
    const dave = discord.createUser({ username: 'dave' });
    const dm = discord.openDirectMessage(dave.id);
    const noServer = await memory(dave.id, dm.id, 'add', {
      fact: 'The DM is a server',
      scope: 'server',
    }).waitForOriginal();
    expect(noServer.content).toContain('In DMs there is no server');
    const japanese = discord.invokeSlashCommand({
      userId: dave.id,
      channelId: dm.id,
      command: 'memory',
      subcommand: 'add',
      options: { fact: 'My cat is called Mochi.' },
      locale: 'ja',
    });
    expect((await japanese.waitForOriginal()).content).toBe(
      '覚えました（個人）：My cat is called Mochi.',
    );
    const inDm = (await memory(dave.id, dm.id, 'list').waitForOriginal()).embeds?.[0];
    expect(inDm?.description).toBe('**Your memories (1/20)**\n• My cat is called Mochi.');
  });

  it('/doctor reports a missing permission and a rejected key, each with the fix', async () => {
    const { discord, world, llm, bot } = harness;
    await bot.waitForLog((line) => line.json?.['msg'] === 'MCP server connected');
    llm.handleModelLookups(modelLookup({ acceptedKeys: ['sk-another-key'] }));
    const lookupsBefore = llm.requests.filter((request) => request.method === 'GET').length;

    const locked = discord.invokeSlashCommand({
      userId: world.alice.id,
      channelId: world.locked.id,
      command: 'doctor',
    });
    const report = (await locked.waitForOriginal()).embeds?.[0];
    expect(report?.title).toBe('Setup check');
    expect(field(report, 'Gateway intents')).toContain('✅ Message Content');
    const permissions = field(report, 'My permissions in this channel');
    expect(permissions).toContain('✅ Send Messages\n');
    expect(permissions).toContain(
      '⚠️ Attach Files is missing: give my role this permission in this channel (channel settings → Permissions).',
    );
    expect(permissions).toContain('⚠️ Embed Links is missing');
    expect(field(report, 'Database')).toMatch(/^✅ Answers in \d+ ms\.$/);
    expect(field(report, 'AI provider')).toBe(
      [
        // The stand-in is the operator's own server (OPENAI_BASE_URL): named by its host.
        `❌ ${new URL(llm.openAIBaseUrl).host} rejects the bot operator’s key: set a working one with \`/config apikey\`.`,
        '⚠️ Model `gpt-5.4-mini` not checked: the key has to work first.',
      ].join('\n'),
    );
    const mcp = field(report, 'MCP servers');
    // Operator MCP servers are off until a scope switches them on; the line says so.
    expect(mcp).toMatch(/^✅ `files`: ready, \d+ tools · switched off here \(`\/config tools`\)$/m);
    expect(mcp).toMatch(/^⚠️ `search`: (connecting…|down, retrying .*my logs say more\.)/m);
    const lookups = llm.requests.filter((request) => request.method === 'GET');
    expect(lookups).toHaveLength(lookupsBefore + 1);
    expect(lookups.at(-1)?.apiKey).toBe(TEST_API_KEY);

    // A member without Manage Server gets the read-only checks: no live call on the key.
    const member = discord.invokeSlashCommand({
      userId: world.bob.id,
      channelId: world.channel.id,
      command: 'doctor',
    });
    const memberReport = (await member.waitForOriginal()).embeds?.[0];
    expect(field(memberReport, 'AI provider')).toBe(
      '➖ Checked live only for members with **Manage Server**.',
    );
    expect(field(memberReport, 'My permissions in this channel')).not.toContain('missing');
    expect(llm.requests.filter((request) => request.method === 'GET')).toHaveLength(lookups.length);

    // Once the key works, the model is checked too.
    llm.handleModelLookups(modelLookup({ knownModels: ['gpt-5.4'] }));
    const unknownModel = discord.invokeSlashCommand({
      userId: world.alice.id,
      channelId: world.channel.id,
      command: 'doctor',
      locale: 'ja',
    });
    const japanese = (await unknownModel.waitForOriginal()).embeds?.[0];
    expect(japanese?.title).toBe('設定チェック');
    expect(field(japanese, 'AIプロバイダー')).toBe(
      [
        `✅ ${new URL(llm.openAIBaseUrl).host} はボット運営者のキーを受け付けています。`,
        `❌ モデル \`gpt-5.4-mini\` は ${new URL(llm.openAIBaseUrl).host} にありません：\`/config model\` で別のモデルを選んでください。`,
      ].join('\n'),
    );
  });
});
