import type { Config } from '../config/config.ts';
import { BotError } from '../../core/errors.ts';
import { StartupError, type StartupPhase } from './startup-phases.ts';

/** Node's codes for a server that could not be reached (closed port, unknown host, …). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** The fatal line for a failed start, and whether the error's stack is worth showing. */
export interface StartupFailure {
  message: string;
  /** False for failures the message fully explains (an unreachable database, a bad token). */
  showStack: boolean;
}

/**
 * One line naming the system that failed and what to check. Expected failures (network, the
 * database refusing, a rejected token) carry no stack; an unexplained one keeps it (a bug).
 */
export function describeStartupFailure(error: unknown, config: Config): StartupFailure {
  const phase = error instanceof StartupError ? error.phase : undefined;
  const cause = error instanceof StartupError ? error.cause : error;
  const code = errorCode(cause);
  const detail = cause instanceof Error ? cause.message : String(cause);
  if (phase === 'database' || phase === 'migrations') {
    const target = databaseTarget(config);
    if (code !== undefined && UNREACHABLE.has(code)) {
      return known(
        `start-up failed: could not reach the database (${target}): ${code} — check DATABASE_URL and that the server is running`,
      );
    }
    const step = phase === 'migrations' ? 'migrating the database' : 'opening the database';
    return known(`start-up failed while ${step} (${target}): ${oneLine(detail)}`);
  }
  if (phase === 'discord-login') return describeLoginFailure(cause, code, detail, config);
  if (cause instanceof BotError) return known(`start-up failed: ${oneLine(cause.message)}`);
  return { message: `start-up failed${phaseLabel(phase)}: ${oneLine(detail)}`, showStack: true };
}

function describeLoginFailure(
  cause: unknown,
  code: string | undefined,
  detail: string,
  config: Config,
): StartupFailure {
  if (code === 'TokenInvalid' || (cause as { status?: unknown } | undefined)?.status === 401) {
    return known(
      'start-up failed: Discord rejected DISCORD_TOKEN — copy the token from the developer portal (your application → Bot → Reset Token) into DISCORD_TOKEN',
    );
  }
  if (code !== undefined && UNREACHABLE.has(code)) {
    // Behind a REST proxy, the login's requests go to the proxy: that is what was not reached.
    if (config.restProxyUrl !== undefined) {
      return known(
        `start-up failed: could not reach the REST proxy at ${config.restProxyUrl} (${code}) — check DISCORD_REST_PROXY and that npm run rest-proxy is running`,
      );
    }
    return known(`start-up failed: could not reach Discord at ${config.discordApiUrl} (${code})`);
  }
  return known(`start-up failed: could not log in to Discord: ${oneLine(detail)}`);
}

function known(message: string): StartupFailure {
  return { message, showStack: false };
}

function phaseLabel(phase: StartupPhase | undefined): string {
  return phase === undefined ? '' : ` in phase ${phase}`;
}

/** PostgreSQL's host, port and database name (never the password), or the embedded folder. */
function databaseTarget(config: Config): string {
  if (config.databaseUrl === undefined) {
    return `embedded database in ${config.dataDir}/pglite`;
  }
  try {
    const url = new URL(config.databaseUrl);
    return `PostgreSQL at ${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

/** The first string `code` along the cause chain (Node's errno code, pg's SQLSTATE, …). */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      current = errors[0];
      continue;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function oneLine(text: string): string {
  return text.split('\n')[0]?.trim() ?? '';
}
