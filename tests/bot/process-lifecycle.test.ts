/**
 * The bot process ends when it cannot go on, so a supervisor (Docker, systemd, pm2) can restart
 * it: a start-up the gateway refuses, a fatal gateway close, a closed stdout. Each runs the real
 * entrypoint against the loopback Discord.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { startBot, type BotProcess, type LogLine } from '../support/scenario-runner.ts';
import { createWorld } from './support/bot-harness.ts';
import { scratchDatabase, type ScratchDatabase } from './support/scratch-database.ts';

const ENTRYPOINT = path.resolve(import.meta.dirname, '../../src/main.ts');
/** A ceiling for the exit after the failure, waited for as an event. */
const EXIT_CEILING_MS = 10_000;
/** Ceilings for a start on a busy machine (loading the SDKs, opening the embedded database). */
const START_CEILING_MS = 90_000;
const TEST_TIMEOUT_MS = 150_000;

let discord: FakeDiscord | undefined;
let bot: BotProcess | undefined;
const children: ChildProcess[] = [];
const folders: string[] = [];
const databases: ScratchDatabase[] = [];

/** The bot on its own PostgreSQL database when TEST_DATABASE_URL is set, else on PGlite. */
async function start(fake: FakeDiscord): Promise<BotProcess> {
  const database = await scratchDatabase();
  databases.push(database);
  return startBot({
    discord: fake,
    logLevel: 'info',
    ...(database.url === undefined ? {} : { databaseUrl: database.url }),
  });
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  await bot?.dispose();
  bot = undefined;
  await discord?.close();
  discord = undefined;
  for (const database of databases.splice(0)) await database.drop();
});

const fatalLines = (lines: readonly LogLine[]) =>
  lines.filter((line) => line.json?.['level'] === 60);

describe('the bot process ends when it cannot go on', { timeout: TEST_TIMEOUT_MS }, () => {
  it('exits non-zero when the gateway refuses it at start-up, instead of retrying forever', async () => {
    discord = await startFakeDiscord();
    discord.gateway.refuseConnections(503);
    const refused = discord.waits.gateway('refused', { timeoutMs: START_CEILING_MS });
    bot = await start(discord);
    await refused;
    const exit = await bot.waitForExit({ timeoutMs: EXIT_CEILING_MS });
    expect(exit.code).toBe(1);
    const fatal = fatalLines(bot.logs());
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.text).toMatch(/could not log in to Discord/);
  });

  it('says once to switch on the Message Content intent when Discord closes with 4014, and exits 1', async () => {
    discord = await startFakeDiscord({ privilegedIntents: [] });
    const closed = discord.waits.gateway('closed', { timeoutMs: START_CEILING_MS });
    bot = await start(discord);
    expect((await closed).code).toBe(4014);
    const exit = await bot.waitForExit({ timeoutMs: EXIT_CEILING_MS });
    expect(exit.code).toBe(1);
    const fatal = fatalLines(bot.logs());
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.json?.['msg']).toMatch(/Message Content Intent.*Privileged Gateway Intents/);
    expect(fatal[0]?.json?.['code']).toBe(4014);
    expect(fatal[0]?.json?.['err']).toBeUndefined();
  });

  it('says to reset the token when a connected bot is closed with 4004, and exits 1', async () => {
    discord = await startFakeDiscord();
    bot = await start(discord);
    await bot.waitUntilConnected({ timeoutMs: START_CEILING_MS });
    discord.gateway.closeConnections(4004);
    const exit = await bot.waitForExit({ timeoutMs: EXIT_CEILING_MS });
    expect(exit.code).toBe(1);
    const fatal = fatalLines(bot.logs());
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.json?.['msg']).toMatch(/DISCORD_TOKEN.*Reset Token/);
  });

  it('exits instead of spinning when its stdout pipe is closed', async () => {
    discord = await startFakeDiscord();
    const { channel, alice } = createWorld(discord);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'bot-epipe-'));
    folders.push(dataDir);
    const database = await scratchDatabase();
    databases.push(database);
    const ready = discord.waits.gateway('ready-sent', { timeoutMs: START_CEILING_MS });
    const child = spawn(process.execPath, [ENTRYPOINT], {
      cwd: dataDir,
      env: {
        PATH: process.env.PATH ?? '',
        DISCORD_TOKEN: discord.token,
        DISCORD_API_URL: discord.apiUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'debug',
        ...(database.url === undefined
          ? {}
          : {
              DATABASE_URL: database.url,
              BOT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
            }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdout.resume();
    await ready;
    child.stdout.destroy();
    // Anything the bot logs now goes into the closed pipe.
    discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> are you there?`,
    });
    const ceiling = new Promise<'still running'>((resolve) => {
      setTimeout(() => resolve('still running'), EXIT_CEILING_MS).unref();
    });
    expect(await Promise.race([exited, ceiling])).toBe(1);
    expect(stderr.match(/log output closed/g)).toHaveLength(1);
  });
});
