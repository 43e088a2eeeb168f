import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { parseRestProxyConfig } from './rest-proxy-config.ts';

describe('parseRestProxyConfig', () => {
  it('listens on loopback port 8080 in front of Discord unless told', () => {
    expect(parseRestProxyConfig({})).toEqual({
      upstreamUrl: 'https://discord.com/api',
      host: '127.0.0.1',
      port: 8080,
      globalRateLimit: 50,
      logLevel: 'info',
      logFormat: undefined,
    });
    expect(
      parseRestProxyConfig({
        DISCORD_API_URL: 'http://127.0.0.1:3000/api/',
        REST_PROXY_PORT: '0',
        REST_PROXY_HOST: '0.0.0.0',
      }),
    ).toMatchObject({ upstreamUrl: 'http://127.0.0.1:3000/api', host: '0.0.0.0', port: 0 });
  });

  it('names every bad key', () => {
    const parse = () =>
      parseRestProxyConfig({ DISCORD_API_URL: 'discord.com', REST_PROXY_PORT: '70000' });
    expect(parse).toThrow(ConfigError);
    try {
      parse();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'DISCORD_API_URL must be a URL starting with http:// or https://, got discord.com',
        'REST_PROXY_PORT must be a port number between 0 (any free port) and 65535, got 70000',
      ]);
    }
  });
});
