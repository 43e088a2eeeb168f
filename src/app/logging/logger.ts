import { createRequire } from 'node:module';
import pino, { type DestinationStream } from 'pino';
import type PinoPretty from 'pino-pretty';
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
  const stream = options.pretty ? prettyDestination(destination) : destination;
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

/**
 * Colours each line in this process and hands it to `destination`. pino-pretty's own stream
 * pipes into its destination, which must then be a full Node stream; the process's log output
 * is a plain writer that survives a closed pipe (log-output.ts), so the lines are formatted here
 * instead, synchronously, on their way to it. pino-pretty (and its colour and date libraries,
 * 8 MB of resident memory) loads only when a terminal reads the logs; it is CommonJS, so
 * `require` loads it synchronously and createLogger stays synchronous.
 */
function prettyDestination(destination: DestinationStream): DestinationStream {
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  const format = prettyFactory({ colorize: true });
  return { write: (line: string) => destination.write(format(line)) };
}
