import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import {
  describeIssues,
  hostSetting,
  logFormatSetting,
  logLevelSetting,
  onOffSetting,
  optionalText,
  optionalUrl,
  portSetting,
  type LogFormat,
  type LogLevel,
} from './config-fields.ts';
import { cacheLimitsEnvironmentSchema, parseCacheLimits } from './cache-limit-settings.ts';
import type { CacheLimits } from '../../core/cache-limits.ts';
import { ConfigError } from '../../core/errors.ts';
import { PROVIDER_IDS, type ProviderId } from '../../core/provider.ts';
import {
  apiBase,
  DEFAULT_GLOBAL_RATE_LIMIT,
  globalRateLimitSetting,
  processCountSetting,
} from './rest-budget-settings.ts';
import { parseSpeech, speechEnvironmentSchema, type SpeechConfig } from './speech-config.ts';
import {
  parseVoiceChannels,
  voiceChannelEnvironmentSchema,
  type VoiceChannelConfig,
} from './voice-channel-config.ts';
import {
  parseSharding,
  shardingEnvironmentSchema,
  type ShardingConfig,
} from './sharding-config.ts';

export type { ShardingConfig };

/**
 * The operator's configuration: parsed once, from the environment and an optional `.env`, at
 * start-up. Names are the public contract documented in README.md and .env.example.
 */
export interface Config {
  discordToken: string;
  discordApiUrl: string;
  /**
   * A REST proxy holding the bot's one global budget (DISCORD_REST_PROXY, e.g.
   * http://127.0.0.1:8080/api): every request but interaction answers goes through it and the
   * process paces nothing itself. undefined: straight to Discord, paced per process.
   */
  restProxyUrl: string | undefined;
  /** How many processes share the token (BOT_PROCESS_COUNT): each paces at 40 / this per second. */
  processCount: number;
  /** Discord's global limit of this bot (DISCORD_GLOBAL_RATE_LIMIT): 50/s unless Discord raised it. */
  globalRateLimit: number;
  databaseUrl: string | undefined;
  /**
   * PostgreSQL: a turn's statements as named prepared statements (DATABASE_PREPARED_STATEMENTS,
   * on unless off): planned once per connection. Off behind a pooler that cannot carry them.
   */
  databasePreparedStatements: boolean;
  dataDir: string;
  /** 32-byte key; undefined means "generate or load one under DATA_DIR" (embedded database only). */
  encryptionKey: Buffer | undefined;
  /** Retired keys (BOT_ENCRYPTION_KEY_PREVIOUS): they only open values sealed before a rotation. */
  previousEncryptionKeys: readonly Buffer[];
  defaultProvider: ProviderId;
  /** Whether the operator named DEFAULT_PROVIDER, or it was inferred from the keys given. */
  defaultProviderSet: boolean;
  defaultModel: string | undefined;
  providerKeys: Record<ProviderId, string | undefined>;
  providerBaseUrls: Record<ProviderId, string | undefined>;
  mcpConfigPath: string | undefined;
  /** A JSON file of model catalogue overrides (context window, capabilities, default models). */
  modelCatalogPath: string | undefined;
  logLevel: LogLevel;
  /** undefined: pretty on a terminal, JSON otherwise. */
  logFormat: LogFormat | undefined;
  devGuildId: string | undefined;
  /** 0 picks a free port (logged). */
  metricsPort: number | undefined;
  /** The address /metrics and /healthz bind to; loopback unless the operator opens it. */
  metricsHost: string;
  ownerIds: readonly string[];
  /** How long SIGTERM lets live replies finish before stopping them. */
  shutdownGraceMs: number;
  /** How long an accepted message may wait for its reply to begin before its member is told. */
  messageWaitLimitMs: number;
  /** Character turns one member message may set off in a scene (SCENE_TURN_LIMIT). */
  sceneTurnLimit: number;
  /** SHARD_COUNT, SHARD_IDS, SHARDS_PER_PROCESS, or the shards a manager gave this process. */
  sharding: ShardingConfig;
  /** The memory bounds: CACHE_* and DISCORD_CACHE_* (README "Memory bounds"). */
  caches: CacheLimits;
  /** Voice messages in and out (SPEECH_*); undefined: speech is off. */
  speech: SpeechConfig | undefined;
  /** Conversation in voice channels (VOICE_*); undefined: off, and no voice module is loaded. */
  voiceChannels: VoiceChannelConfig | undefined;
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 15_000;
/**
 * Long enough for a full queue of turns ahead and a provider's retries, short enough that a
 * member whose message is stuck hears about it while the conversation is still going.
 */
export const DEFAULT_MESSAGE_WAIT_LIMIT_MS = 300_000;
/** Enough for a character to answer and turn to another twice; a scene never runs away. */
export const DEFAULT_SCENE_TURN_LIMIT = 3;

export { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './config-fields.ts';

export const DEFAULT_METRICS_HOST = '127.0.0.1';

export const DEFAULT_DISCORD_API_URL = 'https://discord.com/api';
const SNOWFLAKE = /^\d{17,20}$/;
const ENCRYPTION_KEY_BYTES = 32;

const MISSING_TOKEN =
  'is required: the bot token from the Discord developer portal (copy .env.example to .env and set it)';

const environmentSchema = z.object({
  DISCORD_TOKEN: z.string({ error: MISSING_TOKEN }).trim().min(1, { error: MISSING_TOKEN }),
  DISCORD_API_URL: optionalUrl(['http:', 'https:']),
  DISCORD_REST_PROXY: optionalUrl(['http:', 'https:']),
  BOT_PROCESS_COUNT: processCountSetting,
  DISCORD_GLOBAL_RATE_LIMIT: globalRateLimitSetting,
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  DATABASE_PREPARED_STATEMENTS: onOffSetting('DATABASE_PREPARED_STATEMENTS'),
  DATA_DIR: optionalText,
  BOT_ENCRYPTION_KEY: optionalText.refine(
    (value) => value === undefined || decodeKey(value) !== undefined,
    `must be ${ENCRYPTION_KEY_BYTES} bytes encoded as base64 (generate one: openssl rand -base64 32)`,
  ),
  BOT_ENCRYPTION_KEY_PREVIOUS: optionalText.refine(
    (value) => value === undefined || splitList(value).every((key) => decodeKey(key) !== undefined),
    `must be a comma-separated list of ${ENCRYPTION_KEY_BYTES}-byte base64 keys (the keys used before BOT_ENCRYPTION_KEY)`,
  ),
  DEFAULT_PROVIDER: optionalText.refine(
    (value) => value === undefined || (PROVIDER_IDS as readonly string[]).includes(value),
    `must be one of ${PROVIDER_IDS.join(', ')}`,
  ),
  DEFAULT_MODEL: optionalText,
  GOOGLE_API_KEY: optionalText,
  OPENAI_API_KEY: optionalText,
  ANTHROPIC_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalUrl(['http:', 'https:']),
  ANTHROPIC_BASE_URL: optionalUrl(['http:', 'https:']),
  GOOGLE_GEMINI_BASE_URL: optionalUrl(['http:', 'https:']),
  MCP_CONFIG: optionalText,
  MODEL_CATALOG: optionalText,
  LOG_LEVEL: logLevelSetting,
  LOG_FORMAT: logFormatSetting,
  DEV_GUILD_ID: optionalText.refine(
    (value) => value === undefined || SNOWFLAKE.test(value),
    'must be a Discord server id (17–20 digits)',
  ),
  METRICS_PORT: portSetting,
  METRICS_HOST: hostSetting,
  SHUTDOWN_GRACE_MS: optionalText.refine(
    (value) => value === undefined || (/^\d{1,7}$/.test(value) && Number(value) <= 600_000),
    'must be a whole number of milliseconds from 0 to 600000',
  ),
  MESSAGE_WAIT_LIMIT_MS: optionalText.refine(
    (value) =>
      value === undefined ||
      (/^\d{1,8}$/.test(value) && Number(value) >= 1_000 && Number(value) <= 3_600_000),
    'must be a whole number of milliseconds from 1000 to 3600000',
  ),
  SCENE_TURN_LIMIT: optionalText.refine(
    (value) =>
      value === undefined || (/^\d{1,2}$/.test(value) && Number(value) >= 1 && Number(value) <= 10),
    'must be a whole number from 1 to 10',
  ),
  BOT_OWNER_IDS: optionalText.refine(
    (value) => value === undefined || splitList(value).every((id) => SNOWFLAKE.test(id)),
    'must be a comma-separated list of Discord user ids (17–20 digits each)',
  ),
  ...shardingEnvironmentSchema,
  ...cacheLimitsEnvironmentSchema,
  ...speechEnvironmentSchema,
  ...voiceChannelEnvironmentSchema,
});

/**
 * Every name the project reads from the environment or `.env`: the bot's settings, the REST
 * proxy's, and those only compose.yaml reads. Any other key in `.env` is reported at start.
 */
export const KNOWN_SETTINGS: readonly string[] = [
  ...Object.keys(environmentSchema.shape),
  'REST_PROXY_HOST',
  'REST_PROXY_PORT',
  'POSTGRES_PASSWORD',
  'GRAFANA_ADMIN_PASSWORD',
  'NODE_ENV',
  'TEST_DATABASE_URL',
];

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Decodes a base64 key; undefined unless it is exactly 32 bytes. */
export function decodeKey(value: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return undefined;
  const key = Buffer.from(value, 'base64');
  return key.length === ENCRYPTION_KEY_BYTES ? key : undefined;
}

export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Parses an environment into a Config. Throws ConfigError listing every problem, one line
 * each, naming the key.
 */
export function parseConfig(environment: Environment): Config {
  const result = environmentSchema.safeParse(environment);
  if (!result.success) {
    throw new ConfigError(describeIssues(result.error.issues, environment));
  }
  const values = result.data;
  const providerKeys: Record<ProviderId, string | undefined> = {
    google: values.GOOGLE_API_KEY,
    openai: values.OPENAI_API_KEY,
    anthropic: values.ANTHROPIC_API_KEY,
  };
  const providerBaseUrls: Record<ProviderId, string | undefined> = {
    google: values.GOOGLE_GEMINI_BASE_URL,
    openai: values.OPENAI_BASE_URL,
    anthropic: values.ANTHROPIC_BASE_URL,
  };
  const problems: string[] = [];
  if (values.DATABASE_URL !== undefined && values.BOT_ENCRYPTION_KEY === undefined) {
    problems.push(
      'BOT_ENCRYPTION_KEY is required with DATABASE_URL: every process sharing the database must use the same key (generate one: openssl rand -base64 32)',
    );
  }
  const { sharding, problems: shardingProblems } = parseSharding(values);
  problems.push(...shardingProblems);
  const { voiceChannels, problems: voiceProblems } = parseVoiceChannels(values);
  problems.push(...voiceProblems);
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    discordToken: values.DISCORD_TOKEN,
    discordApiUrl: (values.DISCORD_API_URL ?? DEFAULT_DISCORD_API_URL).replace(/\/+$/, ''),
    restProxyUrl:
      values.DISCORD_REST_PROXY === undefined ? undefined : apiBase(values.DISCORD_REST_PROXY),
    // A shard child is told the bot-wide count by its manager; BOT_PROCESS_COUNT overrides it.
    processCount:
      values.BOT_PROCESS_COUNT !== undefined
        ? Number(values.BOT_PROCESS_COUNT)
        : sharding.role === 'shard'
          ? sharding.processCount
          : 1,
    globalRateLimit: numberOr(values.DISCORD_GLOBAL_RATE_LIMIT, DEFAULT_GLOBAL_RATE_LIMIT),
    databaseUrl: values.DATABASE_URL,
    databasePreparedStatements: values.DATABASE_PREPARED_STATEMENTS !== 'off',
    dataDir: path.resolve(values.DATA_DIR ?? './data'),
    encryptionKey:
      values.BOT_ENCRYPTION_KEY === undefined ? undefined : decodeKey(values.BOT_ENCRYPTION_KEY),
    previousEncryptionKeys: splitList(values.BOT_ENCRYPTION_KEY_PREVIOUS ?? '').flatMap(
      (key) => decodeKey(key) ?? [],
    ),
    defaultProvider:
      (values.DEFAULT_PROVIDER as ProviderId | undefined) ??
      inferDefaultProvider(providerKeys, providerBaseUrls),
    defaultProviderSet: values.DEFAULT_PROVIDER !== undefined,
    defaultModel: values.DEFAULT_MODEL,
    providerKeys,
    providerBaseUrls,
    mcpConfigPath: values.MCP_CONFIG === undefined ? undefined : path.resolve(values.MCP_CONFIG),
    modelCatalogPath:
      values.MODEL_CATALOG === undefined ? undefined : path.resolve(values.MODEL_CATALOG),
    logLevel: (values.LOG_LEVEL as LogLevel | undefined) ?? 'info',
    logFormat: values.LOG_FORMAT as LogFormat | undefined,
    devGuildId: values.DEV_GUILD_ID,
    metricsPort: values.METRICS_PORT === undefined ? undefined : Number(values.METRICS_PORT),
    metricsHost: values.METRICS_HOST ?? DEFAULT_METRICS_HOST,
    ownerIds: values.BOT_OWNER_IDS === undefined ? [] : splitList(values.BOT_OWNER_IDS),
    shutdownGraceMs: numberOr(values.SHUTDOWN_GRACE_MS, DEFAULT_SHUTDOWN_GRACE_MS),
    messageWaitLimitMs: numberOr(values.MESSAGE_WAIT_LIMIT_MS, DEFAULT_MESSAGE_WAIT_LIMIT_MS),
    sceneTurnLimit: numberOr(values.SCENE_TURN_LIMIT, DEFAULT_SCENE_TURN_LIMIT),
    sharding,
    caches: parseCacheLimits(values),
    speech: parseSpeech(values),
    voiceChannels,
  };
}

/** A checked numeric setting, or its default when unset. */
function numberOr(value: string | undefined, fallback: number): number {
  return value === undefined ? fallback : Number(value);
}

/**
 * Without DEFAULT_PROVIDER, the first provider the operator gave a key for; an OpenAI base URL
 * alone means a local OpenAI-compatible server (Ollama, vLLM, …) that needs no key.
 */
function inferDefaultProvider(
  keys: Record<ProviderId, string | undefined>,
  baseUrls: Record<ProviderId, string | undefined>,
): ProviderId {
  return (
    PROVIDER_IDS.find((provider) => keys[provider] !== undefined) ??
    (baseUrls.openai !== undefined ? 'openai' : 'google')
  );
}

/** The process environment merged over `.env` in `directory` (the environment wins). */
export function readEnvironment(directory: string, processEnvironment: Environment): Environment {
  return { ...readEnvFile(directory), ...processEnvironment };
}

/** The keys and values of `.env` in `directory`; empty when there is none. */
export function readEnvFile(directory: string): Environment {
  const file = path.join(directory, '.env');
  return existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {};
}

/** This process's environment merged over its `.env`. */
export function processEnvironment(directory = process.cwd()): Environment {
  return readEnvironment(directory, process.env);
}

/** Reads and parses the configuration of this process. */
export function loadConfig(directory = process.cwd()): Config {
  return parseConfig(processEnvironment(directory));
}

/** Every secret value in the configuration, so the logger can scrub them from any output. */
export function secretValues(config: Config): string[] {
  const secrets = [
    config.discordToken,
    ...Object.values(config.providerKeys),
    config.speech?.apiKey,
    config.encryptionKey?.toString('base64'),
    ...config.previousEncryptionKeys.map((key) => key.toString('base64')),
    databasePassword(config.databaseUrl),
  ];
  return secrets.filter((secret): secret is string => secret !== undefined && secret.length >= 6);
}

function databasePassword(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}
