/**
 * `/usage` end to end through the real bot process, the loopback Discord and the LLM stand-in,
 * on the embedded database (and on PostgreSQL in the e2e-postgres project): a priced model
 * (MODEL_CATALOG) turns a reply's tokens into money; a member sees their own usage, a manager
 * the server's by member and model; the attached chart is decoded and its bars checked by
 * colour; a member's budget in dollars refuses the next message, naming what was spent.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadImage, createCanvas } from '@napi-rs/canvas';
import { MessageFlags, PermissionFlagsBits, type APIMessage } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHART_COLOURS,
  CHART_HEIGHT,
  CHART_WIDTH,
} from '../../src/bot/commands/usage/usage-chart.ts';
import { addUsage } from '../../src/db/usage-repository.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { makeTemporaryFolder, removeTemporaryFolder } from '../support/test-resources.ts';
import {
  startHarness,
  TEST_MODEL,
  waitForTurn,
  createWorld,
  type BotHarness,
} from './support/bot-harness.ts';
import { commandsRegistered } from './support/slash-commands.ts';

const DAY_MS = 86_400_000;
/** Dollars per million tokens for the test model: 2,000 in (1,000 cached) + 500 out = $0.0061. */
const PRICE = { inputPerMillion: 1, cachedInputPerMillion: 0.1, outputPerMillion: 10 };
const SEEDED_MODEL = 'claude-sonnet-4-5';
/** Where the bars are: under the title and legend, over the axis labels (chart of 1000 × 500). */
const PLOT_TOP = 100;
const PLOT_BOTTOM_MARGIN = 80;

function setup(discord: BotHarness['discord']) {
  const world = createWorld(discord);
  const managers = discord.createRole({
    guildId: world.guild.id,
    name: 'managers',
    permissions: PermissionFlagsBits.ManageGuild,
  });
  const carol = discord.createUser({ username: 'carol' });
  discord.addMember({ guildId: world.guild.id, userId: carol.id });
  discord.build.updateMember({ guildId: world.guild.id, userId: carol.id, roleIds: [managers.id] });
  return { ...world, carol };
}

const isEphemeral = (message: APIMessage) => ((message.flags ?? 0) & MessageFlags.Ephemeral) !== 0;

/**
 * Pixels of exactly `colour` in each tenth of the chart's width, in the plot's band (below the
 * title and the legend, whose swatches carry the series colours too; above the day labels).
 */
async function colourColumns(png: Buffer, colour: string): Promise<number[]> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const { data } = context.getImageData(0, 0, image.width, image.height);
  const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(colour.slice(at, at + 2), 16));
  const columns = Array<number>(10).fill(0);
  for (let index = 0; index < data.length; index += 4) {
    if (data[index] !== r || data[index + 1] !== g || data[index + 2] !== b) continue;
    const pixel = index / 4;
    const y = Math.floor(pixel / image.width);
    if (y < PLOT_TOP || y > image.height - PLOT_BOTTOM_MARGIN) continue;
    const x = pixel % image.width;
    const column = Math.floor((x * 10) / image.width);
    columns[column] = (columns[column] ?? 0) + 1;
  }
  return columns;
}

describe('/usage', () => {
  let harness: BotHarness<ReturnType<typeof setup>>;
  const folder = makeTemporaryFolder('usage-catalog-');

  beforeAll(async () => {
    const catalog = path.join(folder, 'models.json');
    writeFileSync(catalog, JSON.stringify({ models: { [TEST_MODEL]: { price: PRICE } } }));
    harness = await startHarness({
      setup,
      env: { MODEL_CATALOG: catalog },
      // Bob spent on another model three days ago: the server's chart has two series.
      seed: async (db, world) => {
        await ensureScope(db, world.guild.id, 'guild');
        await addUsage(db, {
          scopeId: world.guild.id,
          memberId: world.bob.id,
          model: SEEDED_MODEL,
          at: new Date(Date.now() - 3 * DAY_MS),
          inputTokens: 40_000,
          cachedInputTokens: 0,
          outputTokens: 2_000,
          cost: 150_000_000,
          turns: 4,
        });
      },
    });
    await commandsRegistered(harness.discord, harness.bot);
  });
  afterAll(async () => {
    await harness?.dispose();
    removeTemporaryFolder(folder);
  });

  async function usage(userId: string) {
    const { discord, world } = harness;
    const reply = await discord
      .invokeSlashCommand({ userId, channelId: world.channel.id, command: 'usage' })
      .waitForOriginal();
    expect(isEphemeral(reply)).toBe(true);
    const [attachment] = reply.attachments;
    if (attachment === undefined) throw new Error(`no chart in: ${JSON.stringify(reply)}`);
    expect(attachment.filename).toBe('usage.png');
    const png = Buffer.from(await (await fetch(attachment.url)).arrayBuffer());
    const embed = reply.embeds?.[0];
    const field = (name: string) => embed?.fields?.find((item) => item.name === name)?.value ?? '';
    return { reply, embed, field, png };
  }

  it("prices a member's turn and shows them their own usage with a chart of it", async () => {
    const { discord, llm, bot, world } = harness;
    llm.enqueue({
      steps: [
        { type: 'text', text: 'Forty-two.' },
        { type: 'usage', inputTokens: 2_000, cachedInputTokens: 1_000, outputTokens: 500 },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const asked = discord.postMessage({
      authorId: world.alice.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> what is the answer?`,
    });
    await waitForTurn(bot, asked.id);

    const { embed, field, png } = await usage(world.alice.id);
    expect(embed?.title).toBe('Your AI usage here');
    expect(field('Today (UTC)')).toMatch(
      /^\$0\.0061 · 2,500 tokens\n1 replies\nYour budget today: unlimited$/,
    );
    expect(field('By model (30 days)')).toBe(`\`${TEST_MODEL}\` — $0.0061 · 2,500 tokens`);
    expect(field('By member (30 days)')).toBe('');
    expect(embed?.image?.url).toContain('usage.png');

    const image = await loadImage(png);
    expect([image.width, image.height]).toEqual([CHART_WIDTH, CHART_HEIGHT]);
    // One series, the first colour, only in today's bar at the right; nothing in the first
    // colour's place for Bob's model (a member sees only their own turns).
    const [first] = CHART_COLOURS.series;
    const columns = await colourColumns(png, first);
    expect(columns[9]).toBeGreaterThan(50);
    expect(columns.slice(0, 8).every((count) => count === 0)).toBe(true);
    expect((await colourColumns(png, CHART_COLOURS.series[1])).every((count) => count === 0)).toBe(
      true,
    );
  });

  it("shows a manager the server's usage by member and model, each model its series", async () => {
    const { world } = harness;
    const { embed, field, png } = await usage(world.carol.id);
    expect(embed?.title).toBe('AI usage in this server');
    expect(field('Last 30 days')).toBe('$0.16 · 44,500 tokens\n5 replies');
    expect(field('By member (30 days)')).toBe(
      `<@${world.bob.id}> — $0.15 · 42,000 tokens\n<@${world.alice.id}> — $0.0061 · 2,500 tokens`,
    );
    expect(field('By model (30 days)').split('\n')[0]).toBe(
      `\`${SEEDED_MODEL}\` — $0.15 · 42,000 tokens`,
    );
    // The costliest model is the first series: Bob's bar three days ago (in the last tenth
    // but one or the last); Alice's model is the second colour, only today (the last tenth).
    const [first, second] = CHART_COLOURS.series;
    const seeded = await colourColumns(png, first);
    expect(seeded[8]! + seeded[9]!).toBeGreaterThan(200);
    expect(seeded.slice(0, 8).every((count) => count === 0)).toBe(true);
    const today = await colourColumns(png, second);
    expect(today[9]).toBeGreaterThan(0);
    expect(today.slice(0, 9).every((count) => count === 0)).toBe(true);
  });

  it('/export carries the usage the invoker may see, beside the conversation', async () => {
    const { discord, world } = harness;
    const reply = await discord
      .invokeSlashCommand({
        userId: world.alice.id,
        channelId: world.channel.id,
        command: 'export',
        options: { format: 'json' },
      })
      .waitForOriginal();
    const usageFile = reply.attachments.find((item) => item.filename.startsWith('usage-'));
    if (usageFile === undefined) throw new Error(`no usage in: ${JSON.stringify(reply)}`);
    expect(usageFile.filename).toBe(`usage-${world.guild.id}.json`);
    const exported = (await (await fetch(usageFile.url)).json()) as {
      scope: string;
      period: { tokens: number; cost: number };
      byModel: Array<{ model: string }>;
    };
    expect(exported.scope).toBe('member');
    expect(exported.period).toMatchObject({ tokens: 2_500, cost: 6_100_000 });
    expect(exported.byModel.map((entry) => entry.model)).toEqual([TEST_MODEL]);
  });

  it('refuses a member whose budget in dollars is spent, naming what was spent and the reset', async () => {
    const { discord, world } = harness;
    const set = await discord
      .invokeSlashCommand({
        userId: world.carol.id,
        channelId: world.channel.id,
        command: 'config',
        subcommand: 'budget',
        options: { member_dollars: 0.005 },
      })
      .waitForOriginal();
    expect(set.content).toBe(
      'Daily budgets (reset at 00:00 UTC) — server: **unlimited**; each member: **$0.005 a day**. See `/usage`.',
    );
    const notice = discord.waits.message({
      channelId: world.channel.id,
      authorId: discord.botUserId,
    });
    discord.postMessage({
      authorId: world.alice.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> and again?`,
    });
    expect((await notice).content).toMatch(
      /^You have used your AI budget for today here: \$0\.0061 and 2,500 tokens spent today\. It resets at 00:00 UTC, in \d+ (h \d+ )?min\.$/,
    );
  });
});
