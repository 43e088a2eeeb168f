import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { startBot, type BotProcess } from './scenario-runner.ts';

let discord: FakeDiscord;
let bot: BotProcess | undefined;

beforeAll(async () => {
  discord = await startFakeDiscord({ waitTimeoutMs: 60_000 });
  const guild = discord.createGuild({ name: 'Scenario server' });
  discord.createChannel({ guildId: guild.id, name: 'general' });
});

afterEach(async () => {
  await bot?.dispose();
  bot = undefined;
});

afterAll(async () => {
  await discord.close();
});

describe('scenario runner', () => {
  it('starts the real entrypoint, waits for READY and a heartbeat, and stops it with SIGTERM (exit 0)', async () => {
    bot = startBot({
      discord,
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'test-key' },
    });
    await bot.waitUntilConnected();
    expect(discord.gateway.sessions().filter((session) => session.connected)).toHaveLength(1);
    await bot.waitForLog(/connected to Discord/);
    const closed = discord.waits.gateway('closed');
    expect(await bot.stop()).toEqual({ code: 0, signal: null });
    expect(await closed).toMatchObject({ code: 1000, by: 'client' });
    expect(bot.logs().some((line) => line.json?.msg === 'shutting down')).toBe(true);
    expect(bot.output()).not.toContain(discord.token);
  });

  it('survives SIGKILL: a restart on the same DATA_DIR reuses the data and connects again', async () => {
    bot = startBot({ discord });
    await bot.waitUntilConnected();
    const keyFile = path.join(bot.dataDir, 'encryption.key');
    const key = readFileSync(keyFile, 'utf8');
    expect(await bot.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(existsSync(path.join(bot.dataDir, 'pglite'))).toBe(true);

    const linesBefore = bot.logs().length;
    bot.restart();
    await bot.waitUntilConnected();
    const secondRun = bot
      .logs()
      .slice(linesBefore)
      .map((line) => line.text);
    expect(secondRun.some((text) => /generated a key/.test(text))).toBe(false);
    expect(readFileSync(keyFile, 'utf8')).toBe(key);
    expect(await bot.stop()).toEqual({ code: 0, signal: null });
  });

  it('rejects the wait with the bot output when the process exits instead of connecting', async () => {
    bot = startBot({ discord, env: { LOG_LEVEL: 'loud' } });
    await expect(bot.waitUntilConnected()).rejects.toThrow(/the bot exited \(1\)[\s\S]*LOG_LEVEL/);
  });
});
