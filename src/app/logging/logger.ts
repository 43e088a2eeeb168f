import pino, { type DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from '../config/config.ts';
import type { Logger } from '../../core/logger.ts';
import { withoutQueryParameters } from './log-privacy.ts';

export const REDACTED = '[REDACTED]';

/** Field paths that hold secrets wherever they appear in a logged object. */
const REDACT_PATHS = [
  'token',
  'apiKey',
  'api_key',
  'password',
  'authorization',
  'Authorization',
  'encryptionKey',
  '*.token',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.authorization',
  '*.Authorization',
  '*.encryptionKey',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
  '*.headers["x-api-key"]',
  '*.headers["x-goog-api-key"]',
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
];

/** Matches credentials that may appear inside free text (error messages, URLs). */
const SECRET_PATTERNS: readonly RegExp[] = [
  /(Bot|Bearer)\s+[A-Za-z0-9._~+/=-]{16,}/g,
  /([?&](?:key|api_key|token)=)[^&\s"]+/gi,
  /(postgres(?:ql)?:\/\/[^:/\s"]+:)[^@\s"]+(?=@)/gi,
];

export interface LoggerOptions {
  level: LogLevel;
  /** Exact secret values to scrub from every line (token, API keys, encryption key, …). */
  secrets: readonly string[];
  /** Pretty, colourised output (a TTY); JSON otherwise. */
  pretty: boolean;
  /** Where lines go; stdout by default. */
  destination?: DestinationStream;
  /** Fields on every line, e.g. `{ shard: '0' }` in a shard process. */
  bindings?: Readonly<Record<string, string>>;
}

/** Replaces every known secret value and credential-looking span in one output line. */
export function scrubSecrets(line: string, secrets: readonly string[]): string {
  let scrubbed = line;
  for (const secret of secrets) {
    if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(REDACTED);
  }
  for (const pattern of SECRET_PATTERNS) {
    scrubbed = scrubbed.replace(pattern, (_match, prefix: string) => `${prefix}${REDACTED}`);
  }
  return scrubbed;
}

/**
 * The root logger. Secrets are removed twice: by field path (redact) and, as a last line of
 * defence, by value on every serialized line before it is written. Members' words stay out of
 * info and above: call sites log ids and counts, and a failed query's parameters are hidden.
 */
export function createLogger(options: LoggerOptions): Logger & pino.Logger {
  const destination = options.destination ?? process.stdout;
  const stream = options.pretty ? pretty({ colorize: true, destination, sync: true }) : destination;
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      base: { service: 'tomodachi-bot', ...options.bindings },
      serializers: {
        err: (error: unknown) => pino.stdSerializers.err(withoutQueryParameters(error) as Error),
      },
      hooks: {
        streamWrite: (line) => scrubSecrets(line, options.secrets),
      },
    },
    stream,
  );
}
