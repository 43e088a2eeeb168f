import { Writable } from 'node:stream';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { LogOutput } from './log-output.ts';
import { prettyLogs } from './log-privacy.ts';
import { createLogger, REDACTED, scrubSecrets } from './logger.ts';

const SECRETS = [
  'MTIzNDU2Nzg5.discord.token.value',
  'sk-live-openai-1234567890',
  'AIzaSyGoogleKey123456',
];

function capture(prettyOutput: boolean): {
  lines: () => string;
  logger: ReturnType<typeof createLogger>;
} {
  let output = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      output += chunk.toString('utf8');
      callback();
    },
  });
  const logger = createLogger({
    level: 'trace',
    secrets: SECRETS,
    pretty: prettyOutput,
    destination,
  });
  return { lines: () => output, logger };
}

function logEverySecretShape(logger: ReturnType<typeof createLogger>): void {
  logger.info({ token: SECRETS[0] }, 'login');
  logger.info({ request: { headers: { authorization: `Bearer ${SECRETS[1]}` } } }, 'request');
  logger.warn({ config: { apiKey: SECRETS[2] } }, 'nested');
  logger.error({ err: new Error(`401 from https://api.example/v1?key=${SECRETS[2]}`) }, 'failed');
  logger.info(`free text mentioning ${SECRETS[1]} and Bot ${SECRETS[0]}`);
  logger.child({ apiKey: SECRETS[1] }).debug('child bindings');
}

describe('logger', () => {
  it.each([false, true])('never writes a secret (pretty=%s)', (prettyOutput) => {
    const { lines, logger } = capture(prettyOutput);
    logEverySecretShape(logger);
    const written = lines();
    expect(written).toContain(REDACTED);
    for (const secret of SECRETS) expect(written).not.toContain(secret);
    expect(written).toContain('free text mentioning');
  });

  it('scrubs credentials in URLs and connection strings it was not told about', () => {
    expect(scrubSecrets('postgres://bot:hunter2hunter@db:5432/x', [])).toBe(
      `postgres://bot:${REDACTED}@db:5432/x`,
    );
    expect(scrubSecrets('GET /v1/models?key=abcdef123456&alt=sse', [])).toBe(
      `GET /v1/models?key=${REDACTED}&alt=sse`,
    );
  });
});

describe('logger privacy', () => {
  it('logs a failed query without its parameters, also as the cause of another error', () => {
    const { lines, logger } = capture(false);
    const failed = new DrizzleQueryError(
      'insert into "conversation_turns" ("content") values ($1)',
      ['my secret diary entry', 42],
      new Error('connection terminated'),
    );
    logger.warn({ err: failed }, 'could not record the user turn');
    logger.error({ err: new Error('turn failed', { cause: failed }) }, 'turn failed');
    const written = lines();
    expect(written).not.toContain('secret diary');
    expect(written).toContain('insert into \\"conversation_turns\\"');
    expect(written).toContain('params: [hidden]');
    expect(written).toContain('connection terminated');
  });

  it('picks pretty output on a terminal unless LOG_FORMAT says otherwise', () => {
    expect(prettyLogs(undefined, true)).toBe(true);
    expect(prettyLogs(undefined, false)).toBe(false);
    expect(prettyLogs('json', true)).toBe(false);
    expect(prettyLogs('pretty', false)).toBe(true);
  });

  it('writes pretty lines to the process log output, which is a writer and not a stream', () => {
    let written = '';
    const output = new LogOutput({
      write: (chunk: string) => {
        written += chunk;
        return true;
      },
      on: () => undefined,
    });
    const logger = createLogger({
      level: 'info',
      secrets: SECRETS,
      pretty: true,
      destination: output,
    });
    logger.info({ token: SECRETS[0] }, 'connected to Discord');
    expect(written).toMatch(/INFO.*connected to Discord/);
    expect(written).not.toMatch(/^\{/);
    expect(written).not.toContain(SECRETS[0]);
  });
});
