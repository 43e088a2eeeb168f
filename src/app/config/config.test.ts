import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseConfig, readEnvironment, secretValues } from './config.ts';
import { DEFAULT_CACHE_LIMITS } from '../../core/cache-limits.ts';
import { ConfigError } from '../../core/errors.ts';

const KEY = Buffer.alloc(32, 7).toString('base64');

function problemsOf(environment: Record<string, string>): readonly string[] {
  try {
    parseConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('parseConfig', () => {
  it('reads the memory bounds, keeping the defaults for those unset', () => {
    const config = parseConfig({
      DISCORD_TOKEN: 'token',
      CACHE_CHANNELS: '1200',
      DISCORD_CACHE_MESSAGES: '0',
    });
    expect(config.caches).toEqual({
      ...DEFAULT_CACHE_LIMITS,
      channels: 1_200,
      discordMessagesPerChannel: 0,
    });
  });

  it('names each memory bound that is not a whole number in its range', () => {
    const problems = problemsOf({
      DISCORD_TOKEN: 'token',
      CACHE_HISTORY_PER_CHANNEL: '0',
      CACHE_SCOPES: 'lots',
      DISCORD_CACHE_MEMBERS: '-5',
    });
    expect(problems.map((problem) => problem.split(' ')[0]).sort()).toEqual([
      'CACHE_HISTORY_PER_CHANNEL',
      'CACHE_SCOPES',
      'DISCORD_CACHE_MEMBERS',
    ]);
    expect(problems[0]).toMatch(/whole number from 1 to 100/);
  });

  it('reads the scene turn limit (default 3) and names one out of range', () => {
    expect(parseConfig({ DISCORD_TOKEN: 'token' }).sceneTurnLimit).toBe(3);
    expect(parseConfig({ DISCORD_TOKEN: 'token', SCENE_TURN_LIMIT: '5' }).sceneTurnLimit).toBe(5);
    const problems = problemsOf({ DISCORD_TOKEN: 'token', SCENE_TURN_LIMIT: '0' });
    expect(problems.map((problem) => problem.split(' ')[0])).toEqual(['SCENE_TURN_LIMIT']);
  });

  it('names DISCORD_TOKEN when it is missing', () => {
    const problems = problemsOf({});
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^DISCORD_TOKEN /);
  });

  it('reports one line per bad key, each naming its key', () => {
    const problems = problemsOf({
      DISCORD_TOKEN: 'token',
      BOT_ENCRYPTION_KEY: 'too-short',
      DEFAULT_PROVIDER: 'mistral',
      METRICS_PORT: '99999',
      DEV_GUILD_ID: 'abc',
      BOT_OWNER_IDS: '123456789012345678,nope',
      OPENAI_BASE_URL: 'localhost:11434',
      LOG_LEVEL: 'verbose',
      LOG_FORMAT: 'xml',
      METRICS_HOST: 'not a host!',
    });
    expect(problems.map((problem) => problem.split(' ')[0]).sort()).toEqual([
      'BOT_ENCRYPTION_KEY',
      'BOT_OWNER_IDS',
      'DEFAULT_PROVIDER',
      'DEV_GUILD_ID',
      'LOG_FORMAT',
      'LOG_LEVEL',
      'METRICS_HOST',
      'METRICS_PORT',
      'OPENAI_BASE_URL',
    ]);
    expect(problems.every((problem) => !problem.includes('\n'))).toBe(true);
  });

  it('echoes the bad value of a setting that holds no secret, and never of a secret', () => {
    const problems = problemsOf({
      DISCORD_TOKEN: 'token',
      DEFAULT_PROVIDER: 'openia',
      LOG_LEVEL: 'very loud',
      BOT_ENCRYPTION_KEY: 'secret-but-too-short',
      DATABASE_URL: 'mysql://bot:hunter2@db/bot',
    });
    expect(problems).toContain(
      'DEFAULT_PROVIDER must be one of google, openai, anthropic, got openia',
    );
    expect(problems).toContainEqual(expect.stringMatching(/^LOG_LEVEL .*, got "very loud"$/));
    expect(problems.join('\n')).not.toMatch(/secret-but-too-short|hunter2/);
  });

  it('requires BOT_ENCRYPTION_KEY with DATABASE_URL, since processes must share it', () => {
    const problems = problemsOf({ DISCORD_TOKEN: 't', DATABASE_URL: 'postgres://db/bot' });
    expect(problems).toEqual([
      expect.stringMatching(/^BOT_ENCRYPTION_KEY is required with DATABASE_URL/),
    ]);
  });

  it('names prepared statements on unless DATABASE_PREPARED_STATEMENTS is off, and names a bad value', () => {
    expect(parseConfig({ DISCORD_TOKEN: 't' }).databasePreparedStatements).toBe(true);
    const off = parseConfig({ DISCORD_TOKEN: 't', DATABASE_PREPARED_STATEMENTS: 'off' });
    expect(off.databasePreparedStatements).toBe(false);
    const problems = problemsOf({ DISCORD_TOKEN: 't', DATABASE_PREPARED_STATEMENTS: 'no' });
    expect(problems).toEqual([expect.stringMatching(/^DATABASE_PREPARED_STATEMENTS /)]);
  });

  it('applies defaults and infers the provider from the key the operator gave', () => {
    const config = parseConfig({ DISCORD_TOKEN: 't', ANTHROPIC_API_KEY: 'sk-ant-123' });
    expect(config).toMatchObject({
      discordApiUrl: 'https://discord.com/api',
      databaseUrl: undefined,
      defaultProvider: 'anthropic',
      logLevel: 'info',
      ownerIds: [],
    });
    expect(config.dataDir).toBe(path.resolve('./data'));
  });

  it('binds metrics to loopback and picks the log format by terminal unless told', () => {
    const defaults = parseConfig({ DISCORD_TOKEN: 't' });
    expect(defaults.metricsHost).toBe('127.0.0.1');
    expect(defaults.logFormat).toBeUndefined();
    const set = parseConfig({
      DISCORD_TOKEN: 't',
      METRICS_HOST: '0.0.0.0',
      METRICS_PORT: '0',
      LOG_FORMAT: 'json',
    });
    expect(set).toMatchObject({ metricsHost: '0.0.0.0', metricsPort: 0, logFormat: 'json' });
  });

  it('treats an OpenAI base URL without a key as a local OpenAI-compatible server', () => {
    const config = parseConfig({
      DISCORD_TOKEN: 't',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
    });
    expect(config.defaultProvider).toBe('openai');
  });

  it('keeps an explicit DEFAULT_PROVIDER and parses lists and ports', () => {
    const config = parseConfig({
      DISCORD_TOKEN: 't',
      GOOGLE_API_KEY: 'g',
      DEFAULT_PROVIDER: 'openai',
      BOT_OWNER_IDS: ' 123456789012345678 , 223456789012345678 ',
      METRICS_PORT: '9464',
      BOT_ENCRYPTION_KEY: KEY,
      DISCORD_API_URL: 'http://127.0.0.1:3000/api/',
    });
    expect(config.defaultProvider).toBe('openai');
    expect(config.ownerIds).toEqual(['123456789012345678', '223456789012345678']);
    expect(config.metricsPort).toBe(9464);
    expect(config.encryptionKey?.length).toBe(32);
    expect(config.discordApiUrl).toBe('http://127.0.0.1:3000/api');
  });

  it('sends REST through a proxy named by its API base or its origin alone', () => {
    expect(parseConfig({ DISCORD_TOKEN: 't' })).toMatchObject({
      restProxyUrl: undefined,
      processCount: 1,
    });
    const byBase = parseConfig({
      DISCORD_TOKEN: 't',
      DISCORD_REST_PROXY: 'http://rest-proxy:8080/api/',
      BOT_PROCESS_COUNT: '4',
    });
    expect(byBase).toMatchObject({ restProxyUrl: 'http://rest-proxy:8080/api', processCount: 4 });
    const byOrigin = parseConfig({
      DISCORD_TOKEN: 't',
      DISCORD_REST_PROXY: 'http://127.0.0.1:8080',
    });
    expect(byOrigin.restProxyUrl).toBe('http://127.0.0.1:8080/api');
    expect(byOrigin.globalRateLimit).toBe(50);
    expect(
      parseConfig({ DISCORD_TOKEN: 't', DISCORD_GLOBAL_RATE_LIMIT: '1200' }).globalRateLimit,
    ).toBe(1200);
  });

  it('names a bad REST proxy URL and a bad process count', () => {
    const problems = problemsOf({
      DISCORD_TOKEN: 't',
      DISCORD_REST_PROXY: 'rest-proxy:8080',
      BOT_PROCESS_COUNT: '0',
      DISCORD_GLOBAL_RATE_LIMIT: 'fast',
    });
    expect(problems).toEqual([
      'DISCORD_REST_PROXY must be a URL starting with http:// or https://, got rest-proxy:8080',
      'BOT_PROCESS_COUNT must be a whole number of bot processes from 1 to 1000, got 0',
      "DISCORD_GLOBAL_RATE_LIMIT must be the bot's global limit in requests per second, 1 to 100000 (Discord's default is 50), got fast",
    ]);
    expect(problemsOf({ DISCORD_TOKEN: 't', BOT_PROCESS_COUNT: '2.5' })).toHaveLength(1);
  });

  it('treats empty values as unset', () => {
    const config = parseConfig({
      DISCORD_TOKEN: 't',
      DEFAULT_MODEL: '  ',
      MCP_CONFIG: '',
      MODEL_CATALOG: ' ',
    });
    expect(config.defaultModel).toBeUndefined();
    expect(config.mcpConfigPath).toBeUndefined();
    expect(config.modelCatalogPath).toBeUndefined();
  });

  it('resolves MODEL_CATALOG to an absolute path', () => {
    const config = parseConfig({ DISCORD_TOKEN: 't', MODEL_CATALOG: './models.json' });
    expect(config.modelCatalogPath).toBe(path.resolve('./models.json'));
  });

  it('parses BOT_ENCRYPTION_KEY_PREVIOUS as a list of retired keys and names a bad one', () => {
    const old = [Buffer.alloc(32, 1).toString('base64'), Buffer.alloc(32, 2).toString('base64')];
    const config = parseConfig({
      DISCORD_TOKEN: 't',
      BOT_ENCRYPTION_KEY: KEY,
      BOT_ENCRYPTION_KEY_PREVIOUS: ` ${old[0]} , ${old[1]} `,
    });
    expect(config.previousEncryptionKeys.map((key) => key.toString('base64'))).toEqual(old);
    expect(parseConfig({ DISCORD_TOKEN: 't' }).previousEncryptionKeys).toEqual([]);
    expect(
      problemsOf({ DISCORD_TOKEN: 't', BOT_ENCRYPTION_KEY_PREVIOUS: `${old[0]},too-short` }),
    ).toEqual([expect.stringMatching(/^BOT_ENCRYPTION_KEY_PREVIOUS must be a comma-separated/)]);
    expect(secretValues(config)).toEqual(expect.arrayContaining(old));
  });

  it('lists every secret so the logger can scrub it', () => {
    const config = parseConfig({
      DISCORD_TOKEN: 'discord-token-value',
      OPENAI_API_KEY: 'sk-openai-value',
      DATABASE_URL: 'postgres://bot:db-password-value@db/bot',
      BOT_ENCRYPTION_KEY: KEY,
    });
    expect(secretValues(config)).toEqual(
      expect.arrayContaining(['discord-token-value', 'sk-openai-value', 'db-password-value', KEY]),
    );
  });
});

describe('readEnvironment', () => {
  it('reads .env and lets the process environment win', () => {
    const directory = temporaryFolder('config-');
    writeFileSync(path.join(directory, '.env'), 'DISCORD_TOKEN=from-file\nLOG_LEVEL=debug\n');
    const environment = readEnvironment(directory, { LOG_LEVEL: 'warn' });
    expect(environment).toMatchObject({ DISCORD_TOKEN: 'from-file', LOG_LEVEL: 'warn' });
  });

  it('works without a .env file', () => {
    const directory = temporaryFolder('config-');
    expect(readEnvironment(directory, { A: 'b' })).toEqual({ A: 'b' });
  });
});

/** A temporary folder removed when the current test ends, passed or failed. */
function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
