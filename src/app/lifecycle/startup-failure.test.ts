import { describe, expect, it } from 'vitest';
import type { Config } from '../config/config.ts';
import { BotError } from '../../core/errors.ts';
import { describeStartupFailure } from './startup-failure.ts';
import { StartupError } from './startup-phases.ts';

const config = {
  discordApiUrl: 'https://discord.com/api',
  databaseUrl: 'postgres://bot:hunter2@db.example:6543/tomodachi',
  dataDir: '/data',
} as Config;

const networkError = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

describe('describeStartupFailure', () => {
  it('names the database, not Discord, when PostgreSQL cannot be reached', () => {
    for (const phase of ['database', 'migrations'] as const) {
      const failure = describeStartupFailure(
        new StartupError(phase, networkError('ECONNREFUSED')),
        config,
      );
      expect(failure.message).toBe(
        'start-up failed: could not reach the database (PostgreSQL at db.example:6543/tomodachi): ECONNREFUSED — check DATABASE_URL and that the server is running',
      );
      expect(failure.message).not.toMatch(/Discord|hunter2/);
      expect(failure.showStack).toBe(false);
    }
  });

  it('finds the code of an unknown host inside an AggregateError or a cause', () => {
    const aggregate = Object.assign(new AggregateError([networkError('ENOTFOUND')], 'failed'), {});
    expect(describeStartupFailure(new StartupError('database', aggregate), config).message).toMatch(
      /could not reach the database .*ENOTFOUND/,
    );
    const wrapped = new Error('query failed', { cause: networkError('EAI_AGAIN') });
    expect(describeStartupFailure(new StartupError('migrations', wrapped), config).message).toMatch(
      /EAI_AGAIN/,
    );
  });

  it('words a database refusal in one line', () => {
    const refused = Object.assign(
      new Error('password authentication failed for user "bot"\nDETAIL'),
      {
        code: '28P01',
      },
    );
    const failure = describeStartupFailure(new StartupError('database', refused), config);
    expect(failure.message).toBe(
      'start-up failed while opening the database (PostgreSQL at db.example:6543/tomodachi): password authentication failed for user "bot"',
    );
  });

  it('names the embedded database folder when there is no DATABASE_URL', () => {
    const failure = describeStartupFailure(new StartupError('database', new Error('lock held')), {
      ...config,
      databaseUrl: undefined,
    });
    expect(failure.message).toBe(
      'start-up failed while opening the database (embedded database in /data/pglite): lock held',
    );
  });

  it('tells a rejected token and an unreachable Discord apart', () => {
    const token = describeStartupFailure(
      new StartupError('discord-login', Object.assign(new Error('x'), { code: 'TokenInvalid' })),
      config,
    );
    expect(token.message).toMatch(/Discord rejected DISCORD_TOKEN/);
    const offline = describeStartupFailure(
      new StartupError('discord-login', networkError('ECONNREFUSED')),
      config,
    );
    expect(offline.message).toBe(
      'start-up failed: could not reach Discord at https://discord.com/api (ECONNREFUSED)',
    );
  });

  it('names the REST proxy, not Discord, when the proxy cannot be reached', () => {
    const failure = describeStartupFailure(
      new StartupError('discord-login', networkError('ECONNREFUSED')),
      { ...config, restProxyUrl: 'http://rest-proxy:8080/api' },
    );
    expect(failure.message).toBe(
      'start-up failed: could not reach the REST proxy at http://rest-proxy:8080/api (ECONNREFUSED) — check DISCORD_REST_PROXY and that npm run rest-proxy is running',
    );
  });

  it('keeps the stack only for a failure it cannot explain', () => {
    expect(describeStartupFailure(new BotError('secret', 'bad key'), config)).toEqual({
      message: 'start-up failed: bad key',
      showStack: false,
    });
    expect(
      describeStartupFailure(new StartupError('tools', new TypeError('oops')), config),
    ).toEqual({ message: 'start-up failed in phase tools: oops', showStack: true });
  });
});
