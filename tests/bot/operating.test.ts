/**
 * Operating the bot, end to end through the real bot process: after five turns (complete, with a
 * tool call, failed, stopped, and one that waited behind it), /metrics lists every family with
 * plausible values; and nothing a member wrote, nor the model's reply, reaches the log at info.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createReminder } from '../../src/db/reminder-repository.ts';
import { parseExposition, valueOf, type Sample } from '../../src/metrics/testing/exposition.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { startBot, type BotProcess } from '../support/scenario-runner.ts';
import {
  createWorld,
  seedDatabase,
  TEST_API_KEY,
  TEST_MODEL,
  waitForTurn,
} from './support/bot-harness.ts';

const STDIO_MCP_SERVER = path.resolve(import.meta.dirname, '../mcp-servers/stdio-server.ts');
/** Words only members and the model use in this scenario: none may appear in the log. */
const MEMBER_WORDS = ['periwinkle', 'zeppelin', 'marmalade', 'ocelot', 'fennel'];
const MODEL_WORDS = ['Saffron', 'hummingbirds', 'quokkas', 'trombone'];
const REMINDER_TEXT = 'repot the fennel seedlings';
const NO_CHANNEL = '999999999999999999';

type World = ReturnType<typeof createWorld>;

describe('operating the bot: metrics and log privacy', () => {
  let harness: { discord: FakeDiscord; llm: LlmStandIn; bot: BotProcess; world: World };
  const cleanups: Array<() => Promise<unknown>> = [];
  let metricsUrl: string;
  const configDirectory = mkdtempSync(path.join(tmpdir(), 'operating-'));
  const dataDirectory = mkdtempSync(path.join(tmpdir(), 'operating-data-'));

  async function scrape(): Promise<Sample[]> {
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(await response.text());
  }

  function mention(authorId: string, text: string) {
    const { discord, world } = harness;
    return discord.postMessage({
      authorId,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> ${text}`,
    });
  }

  beforeAll(async () => {
    const mcpConfig = path.join(configDirectory, 'mcp.json');
    writeFileSync(
      mcpConfig,
      JSON.stringify({
        mcpServers: { notes: { command: process.execPath, args: [STDIO_MCP_SERVER] } },
      }),
    );
    const discord = await startFakeDiscord({ rateLimitTimeScale: 0.1 });
    cleanups.push(() => discord.close());
    const llm = await LlmStandIn.start();
    cleanups.push(() => llm.close());
    const world = createWorld(discord, 'Operating');
    // Two reminders already due at start: one to deliver, one whose channel is gone.
    await seedDatabase(dataDirectory, async (db) => {
      for (const channelId of [world.channel.id, NO_CHANNEL]) {
        await createReminder(db, {
          scope: { id: world.guild.id, kind: 'guild' },
          channelId,
          userId: world.alice.id,
          messageId: '111111111111111111',
          content: REMINDER_TEXT,
          dueAt: new Date(Date.now() - 60_000),
          limit: 25,
        });
      }
    });
    const bot = startBot({
      discord,
      dataDir: dataDirectory,
      logLevel: 'info',
      env: {
        OPENAI_BASE_URL: llm.openAIBaseUrl,
        OPENAI_API_KEY: TEST_API_KEY,
        DEFAULT_MODEL: TEST_MODEL,
        METRICS_PORT: '0',
        MCP_CONFIG: mcpConfig,
        LOG_FORMAT: 'json',
      },
    });
    cleanups.push(() => bot.dispose());
    harness = { discord, llm, bot, world };
    // Generous: a loaded 2-core machine starts the process and PGlite slowly.
    await bot.waitUntilConnected({ timeoutMs: 150_000 });
    const listening = await bot.waitForLog(/metrics listening/);
    metricsUrl = `http://127.0.0.1:${String(listening.json?.['port'])}/metrics`;
  }, 300_000);
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    rmSync(configDirectory, { recursive: true, force: true });
    rmSync(dataDirectory, { recursive: true, force: true });
  });

  it('lists every family with plausible values after five turns', async () => {
    const { discord, llm, bot, world } = harness;
    const { channel, alice, bob } = world;

    // 1. A plain reply, whose first write meets a route 429.
    discord.faults.rateLimitStorm({
      method: 'POST',
      route: '/channels/:channelId/messages',
      retryAfterMs: 20,
      scope: 'user',
      times: 1,
    });
    llm.enqueue(textScript('Saffron ', 'hummingbirds hum.'));
    await waitForTurn(bot, mention(alice.id, 'tell me about periwinkle zeppelins').id, 60_000);

    // 2. A reply after a tool call, whose first write meets the bot's global limit.
    discord.faults.rateLimitStorm({
      method: 'POST',
      route: '/channels/:channelId/messages',
      retryAfterMs: 20,
      scope: 'global',
      times: 1,
    });
    llm.enqueue(
      {
        steps: [
          { type: 'tool-calls', calls: [{ id: 'call_1', name: 'current_time', arguments: '{}' }] },
          { type: 'finish', reason: 'tool_calls' },
        ],
      },
      textScript('The quokkas wake at noon.'),
    );
    await waitForTurn(bot, mention(alice.id, 'what time do ocelots eat marmalade?').id, 60_000);

    // 3. A failed turn: the provider refuses the key; the notice is the turn's last write.
    llm.enqueue({ steps: [{ type: 'fail', kind: 'auth' }] });
    const notice = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => message.content.includes('Incident'),
    });
    await waitForTurn(bot, mention(bob.id, 'zeppelin facts please').id, 60_000);
    await notice;
    await vi.waitFor(async () => expect(valueOf(await scrape(), 'tomodachi_turns_live')).toBe(0), {
      timeout: 30_000,
      interval: 100,
    });

    // 4. A turn held mid-stream while bob's mention waits behind it, then stopped by alice.
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'A trombone solo begins.\n\n' },
        { type: 'hold', gate },
      ],
    });
    const firstWords = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => message.content.includes('trombone'),
    });
    const held = mention(alice.id, 'play the periwinkle trombone');
    await firstWords;
    const queued = mention(bob.id, 'and fennel marmalade after that?');
    // Nothing on Discord shows that bob's mention is waiting: the gauge is the event to wait for.
    const during = await vi.waitFor(
      async () => {
        const samples = await scrape();
        expect(valueOf(samples, 'tomodachi_turns_queued')).toBe(1);
        return samples;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(valueOf(during, 'tomodachi_turns_live')).toBe(1);
    llm.enqueue(textScript('Okay, I stop.'), textScript('Saffron marmalade, sure.'));
    discord.postMessage({ authorId: alice.id, channelId: channel.id, content: 'stop' });
    await waitForTurn(bot, held.id, 60_000);
    // 5. Bob's waiting mention is answered next.
    await waitForTurn(bot, queued.id, 60_000);
    gate.release();

    // The seeded reminders went out at start: one delivered, one given up (its channel is gone).
    const samples = await vi.waitFor(
      async () => {
        const current = await scrape();
        expect(valueOf(current, 'tomodachi_reminders_total', { event: 'failed' })).toBe(1);
        return current;
      },
      { timeout: 30_000, interval: 100 },
    );
    const reminder = discord
      .readChannel(channel.id)
      .filter((message) => message.content.includes(REMINDER_TEXT));
    expect(reminder).toHaveLength(1);
    const model = { provider: 'openai', model: TEST_MODEL };
    expect(valueOf(samples, 'tomodachi_turns_total', { ...model, status: 'complete' })).toBe(3);
    expect(valueOf(samples, 'tomodachi_turns_total', { ...model, status: 'failed' })).toBe(1);
    expect(valueOf(samples, 'tomodachi_turns_total', { ...model, status: 'stopped' })).toBe(1);
    expect(valueOf(samples, 'tomodachi_turn_duration_seconds_count', model)).toBe(5);
    const turnSeconds = valueOf(samples, 'tomodachi_turn_duration_seconds_sum', model);
    expect(turnSeconds).toBeGreaterThan(0);
    expect(turnSeconds).toBeLessThan(300);
    expect(valueOf(samples, 'tomodachi_turn_first_token_seconds_count', model)).toBe(4);
    // Three finished replies report 12 input tokens each (the stand-in's usage).
    expect(
      valueOf(samples, 'tomodachi_tokens_total', { ...model, direction: 'input' }),
    ).toBeGreaterThanOrEqual(36);
    expect(
      valueOf(samples, 'tomodachi_tokens_total', { ...model, direction: 'output' }),
    ).toBeGreaterThan(0);
    expect(valueOf(samples, 'tomodachi_turns_live')).toBe(0);
    expect(valueOf(samples, 'tomodachi_turns_queued')).toBe(0);

    const created = valueOf(samples, 'tomodachi_discord_requests_total', {
      kind: 'message_create',
      status: '2xx',
    });
    expect(created).toBeGreaterThanOrEqual(6); // five turns' replies, the notice, the reminder
    expect(
      valueOf(samples, 'tomodachi_discord_requests_total', { kind: 'typing' }),
    ).toBeGreaterThan(0);
    expect(valueOf(samples, 'tomodachi_discord_rate_limited_total', { scope: 'route' })).toBe(1);
    expect(valueOf(samples, 'tomodachi_discord_rate_limited_total', { scope: 'global' })).toBe(1);
    expect(valueOf(samples, 'tomodachi_discord_typing_skipped_total')).toBe(0);

    expect(valueOf(samples, 'tomodachi_stop_latency_seconds_count', { kind: 'phrase' })).toBe(1);
    expect(valueOf(samples, 'tomodachi_stop_latency_seconds_sum')).toBeLessThan(30);
    expect(
      valueOf(samples, 'tomodachi_tool_calls_total', { tool: 'current_time', status: 'ok' }),
    ).toBe(1);
    expect(
      valueOf(samples, 'tomodachi_tool_call_duration_seconds_count', { tool: 'current_time' }),
    ).toBe(1);
    expect(valueOf(samples, 'tomodachi_mcp_server_up', { server: 'notes' })).toBe(1);

    for (const operation of ['select', 'insert', 'update']) {
      expect(
        valueOf(samples, 'tomodachi_db_query_duration_seconds_count', { operation }),
      ).toBeGreaterThan(0);
    }
    expect(valueOf(samples, 'tomodachi_reminders_total', { event: 'due' })).toBe(2);
    expect(valueOf(samples, 'tomodachi_reminders_total', { event: 'delivered' })).toBe(1);
    expect(valueOf(samples, 'tomodachi_reminders_total', { event: 'failed' })).toBe(1);

    expect(valueOf(samples, 'process_resident_memory_bytes')).toBeGreaterThan(20 * 1024 * 1024);
    expect(valueOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(valueOf(samples, 'nodejs_active_handles_total')).toBeGreaterThan(0);
    expect(valueOf(samples, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(valueOf(samples, 'nodejs_gc_duration_seconds_count')).toBeGreaterThan(0);
  }, 300_000);

  it('logs none of the members’ words nor the model’s reply at info', () => {
    const output = harness.bot.output();
    expect(output).toContain('turn finished');
    for (const word of [...MEMBER_WORDS, ...MODEL_WORDS, REMINDER_TEXT]) {
      expect(output.toLowerCase(), word).not.toContain(word.toLowerCase());
    }
  });
});
