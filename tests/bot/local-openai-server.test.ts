/**
 * A local OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp) as the operator sets it
 * up: OPENAI_BASE_URL, no key, no DEFAULT_MODEL. The stand-in lists the server's models on
 * GET /v1/models and knows only those, as such a server does.
 */
import type { APIEmbed } from 'discord-api-types/v10';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { modelLookup } from '../support/llm-stand-in/model-routes.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startBot, type BotProcess } from '../support/scenario-runner.ts';
import { waitForTurn } from './support/bot-harness.ts';
import { chatRequests } from './support/chat-requests.ts';
import { commandsRegistered } from './support/slash-commands.ts';

const TEST_TIMEOUT_MS = 300_000;

let discord: FakeDiscord | undefined;
let llm: LlmStandIn | undefined;
let bot: BotProcess | undefined;

afterEach(async () => {
  await bot?.dispose();
  bot = undefined;
  await llm?.close();
  llm = undefined;
  await discord?.close();
  discord = undefined;
});

function field(embed: APIEmbed | undefined, name: string): string {
  const found = embed?.fields?.find((entry) => entry.name === name);
  if (found === undefined) throw new Error(`no field "${name}" in ${JSON.stringify(embed)}`);
  return found.value;
}

describe('a local OpenAI-compatible server', { timeout: TEST_TIMEOUT_MS }, () => {
  it('is asked for its models: one is used, several are named with how to pick one', async () => {
    let models: readonly string[] = ['llama3.2:3b', 'qwen3:8b'];
    llm = await LlmStandIn.start({
      listedModels: () => Promise.resolve(models),
      modelLookup: modelLookup({ knownModels: (model) => models.includes(model) }),
    });
    discord = await startFakeDiscord({ rateLimitTimeScale: 0.1, waitTimeoutMs: 60_000 });
    const guild = discord.createGuild({ name: 'Local' });
    const channel = discord.createChannel({ guildId: guild.id, name: 'general' });
    const admin = discord.createUser({ username: 'admin' });
    const managers = discord.createRole({
      guildId: guild.id,
      name: 'managers',
      permissions: PermissionFlagsBits.ManageGuild,
    });
    discord.addMember({ guildId: guild.id, userId: admin.id, roleIds: [managers.id] });
    const server = new URL(llm.openAIBaseUrl).host;
    bot = startBot({
      discord,
      logLevel: 'info',
      env: { OPENAI_BASE_URL: llm.openAIBaseUrl },
    });
    await bot.waitUntilConnected();
    await commandsRegistered(discord, bot);

    // Several models: the start says which there are and how to choose.
    const several = await bot.waitForLog(/has 2 models/, { timeoutMs: 60_000 });
    expect(several.json?.['level']).toBe(40);
    expect(several.json?.['msg']).toBe(
      `the server at ${server} has 2 models (llama3.2:3b, qwen3:8b): pick the default with DEFAULT_MODEL in .env (e.g. DEFAULT_MODEL=llama3.2:3b) and restart, or a server admin picks one with /config model`,
    );

    // /doctor names the server by its host, not "OpenAI", and lists what it has.
    const doctor = discord.invokeSlashCommand({
      userId: admin.id,
      channelId: channel.id,
      command: 'doctor',
    });
    const report = (await doctor.waitForOriginal()).embeds?.[0];
    const provider = field(report, 'AI provider');
    expect(provider).not.toMatch(/OpenAI/);
    expect(provider).toContain(`does not exist at ${server}`);
    expect(provider).toContain(
      `${server} has \`llama3.2:3b\`, \`qwen3:8b\`: pick one here with \`/config model\``,
    );

    // A key for that server is not refused for the operator's default model.
    const keyForm = discord.invokeSlashCommand({
      userId: admin.id,
      channelId: channel.id,
      command: 'config',
      subcommandGroup: 'apikey',
      subcommand: 'set',
    });
    await keyForm.response();
    const saved = await keyForm.submitModal({ key: 'local-server-key-123456' }).waitForOriginal();
    expect(saved.content).toMatch(/^Key saved for/);
    expect(saved.content).toContain(`the OpenAI-compatible server at ${server}`);

    // /config show names the server too.
    const show = discord.invokeSlashCommand({
      userId: admin.id,
      channelId: channel.id,
      command: 'config',
      subcommand: 'show',
    });
    const shown = JSON.stringify((await show.waitForOriginal()).embeds ?? []);
    expect(shown).toContain(`the OpenAI-compatible server at ${server}`);

    // One model: it is the default, and a mention is answered with it.
    models = ['llama3.2:3b'];
    await bot.stop();
    bot.restart();
    await bot.waitUntilConnected();
    await bot.waitForLog(/has one model, llama3\.2:3b: it is the default/);
    llm.enqueue(textScript('Hello from llama.'));
    const mention = discord.postMessage({
      authorId: admin.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> hi`,
    });
    await waitForTurn(bot, mention.id);
    expect(chatRequests(llm.requests).at(-1)?.model).toBe('llama3.2:3b');
  });
});
