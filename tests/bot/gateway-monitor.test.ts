/**
 * The gateway monitor and the session backfill on the unmodified discord.js client against the
 * loopback gateway: every close is logged with its code, a fatal close is reported once and
 * makes the gateway unhealthy at once, and a fresh session feeds the gap's messages back.
 */
import { Client, Partials, SimpleShardingStrategy, type Message } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/logger.ts';
import { GatewayMonitor } from '../../src/bot/client/gateway-monitor.ts';
import { attachSessionBackfill } from '../../src/bot/recovery/session-backfill-wiring.ts';
import { GatewayHealth } from '../../src/metrics/gateway-health.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { systemClock } from '../../src/core/clock.ts';
import { CHAT_BOT_INTENTS, nextEvent } from '../fake-discord/discord-js-harness.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';

interface Entry {
  level: string;
  fields: Record<string, unknown>;
  message: string | undefined;
}

/** A Logger that keeps what it is told, for assertions. */
function recordingLogger(entries: Entry[]): Logger {
  const at =
    (level: string) =>
    (first: object | string, message?: string): void => {
      entries.push(
        typeof first === 'string'
          ? { level, fields: {}, message: first }
          : { level, fields: first as Record<string, unknown>, message },
      );
    };
  const logger: Logger = {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: () => logger,
  };
  return logger;
}

/** discord.js spaces IDENTIFYs 5 s apart; tests that force a fresh one skip that wait. */
const noIdentifyWait = () => Promise.resolve({ waitForIdentify: () => Promise.resolve() });

let discord: FakeDiscord;
let client: Client<true>;
let clock: ManualClock;
let health: GatewayHealth;
let entries: Entry[];
let fatal: { advice: string; code: number }[];
let delivered: Message[];
let channelId: string;
let alice: string;

beforeEach(async () => {
  discord = await startFakeDiscord({ heartbeatIntervalMs: 250 });
  const guildId = discord.createGuild().id;
  channelId = discord.createChannel({ guildId, name: 'general' }).id;
  alice = discord.createUser({ username: 'alice' }).id;
  discord.addMember({ guildId, userId: alice });
  clock = new ManualClock();
  health = new GatewayHealth({ clock });
  entries = [];
  fatal = [];
  delivered = [];
  const logger = recordingLogger(entries);
  const monitor = new GatewayMonitor({
    logger,
    health,
    onFatalClose: (advice, code) => fatal.push({ advice, code }),
  });
  const unready = new Client({
    intents: CHAT_BOT_INTENTS,
    partials: [Partials.Channel],
    rest: { api: discord.apiUrl },
    ws: {
      buildIdentifyThrottler: noIdentifyWait,
      buildStrategy: (manager) => {
        monitor.observe(manager);
        return new SimpleShardingStrategy(manager);
      },
    },
  });
  // Attached before login, as DiscordBot.attach() is: the first READY is not a gap.
  attachSessionBackfill({
    client: unready,
    clock: systemClock,
    logger,
    deliver: (message) => {
      delivered.push(message);
      return Promise.resolve();
    },
  });
  const ready = nextEvent(unready, 'clientReady');
  await unready.login(discord.token);
  await ready;
  client = unready as Client<true>;
});

afterEach(async () => {
  await client.destroy();
  await discord.close();
});

const closes = () =>
  entries.filter((entry) => entry.message?.startsWith('gateway connection closed'));

function post(content: string) {
  return discord.postMessage({ authorId: alice, channelId, content });
}

describe('the gateway monitor on discord.js', () => {
  it('logs a 4000 close with its code, resumes, and stays healthy through it', async () => {
    expect(health.state).toBe('connected');
    const resumed = discord.waits.gateway('resumed');
    discord.gateway.closeConnections(4000);
    await resumed;
    expect(closes().map((entry) => entry.fields)).toEqual([
      { shardId: 0, code: 4000, next: 'resume' },
    ]);
    await discord.waits.event(
      (event) => (health.state === 'connected' ? event : undefined),
      'the gateway connected again',
    );
    expect(health.healthy()).toBe(true);
    expect(entries.some((entry) => entry.message === 'gateway session resumed')).toBe(true);
    expect(fatal).toEqual([]);
  });

  it('reports a 4004 close once, as fatal, and turns /healthz red at once', async () => {
    const sessionGone = new Promise<void>((resolve) =>
      client.once('shardDisconnect', () => resolve()),
    );
    discord.gateway.closeConnections(4004);
    await sessionGone;
    expect(fatal).toEqual([
      { advice: expect.stringMatching(/DISCORD_TOKEN/) as string, code: 4004 },
    ]);
    expect(health.healthy()).toBe(false);
    expect(closes()).toEqual([]);
  });

  it('reports a gateway away for more than 30 s as unhealthy', async () => {
    discord.gateway.refuseConnections(503);
    const refused = discord.waits.gateway('refused');
    discord.gateway.dropConnections();
    await refused;
    expect(health.healthy()).toBe(true);
    await clock.advance(30_001);
    expect(health.healthy()).toBe(false);
    const resumed = discord.waits.gateway('resumed');
    discord.gateway.refuseConnections(undefined);
    await resumed;
  });

  it('backfills the gap after a fresh session (1000), and not after a resume', async () => {
    const seen = new Promise<void>((resolve) => client.once('messageCreate', () => resolve()));
    post('before the gap');
    await seen;
    const resumed = discord.waits.gateway('resumed');
    discord.gateway.closeConnections(4000);
    await resumed;
    expect(delivered).toEqual([]);

    const backfilled = new Promise<void>((resolve) =>
      client.on('shardReady', () => setImmediate(resolve)),
    );
    discord.gateway.closeConnections(1000);
    const missed = post('sent while the bot was away');
    await backfilled;
    await discord.waits.event(
      () => (delivered.length > 0 ? true : undefined),
      'the backfill delivering a message',
    );
    expect(delivered.map((message) => message.id)).toEqual([missed.id]);
    expect(closes().at(-1)?.fields).toEqual({ shardId: 0, code: 1000, next: 'reconnect' });
  });
});
