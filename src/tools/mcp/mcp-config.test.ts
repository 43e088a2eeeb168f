import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.ts';
import { mcpSecretValues, parseMcpConfig } from './mcp-config.ts';
import { matching } from '../../../tests/tools/support/matchers.ts';

const options = {
  environment: { SEARCH_TOKEN: 'tok-123', HOME: '/home/bot' },
  baseDirectory: '/etc/bot',
};

function problemsOf(json: unknown): readonly string[] {
  try {
    parseMcpConfig(json, options);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseMcpConfig', () => {
  it('reads stdio and Streamable HTTP servers in the common mcpServers shape', () => {
    const servers = parseMcpConfig(
      {
        mcpServers: {
          files: {
            command: 'node',
            args: ['./fs-server.js', '${HOME}'],
            cwd: 'servers',
            env: { MODE: 'ro' },
          },
          search: {
            type: 'http',
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer ${SEARCH_TOKEN}' },
            enabledByDefault: true,
            timeoutMs: 10_000,
          },
          old: { command: 'node', disabled: true },
        },
      },
      options,
    );
    expect(servers).toEqual([
      {
        name: 'files',
        transport: 'stdio',
        command: 'node',
        args: ['./fs-server.js', '/home/bot'],
        env: { MODE: 'ro' },
        cwd: '/etc/bot/servers',
        enabledByDefault: false,
        timeoutMs: undefined,
        secrets: ['/home/bot'],
      },
      {
        name: 'search',
        transport: 'http',
        url: new URL('https://mcp.example.com/mcp'),
        headers: { Authorization: 'Bearer tok-123' },
        enabledByDefault: true,
        timeoutMs: 10_000,
        secrets: ['tok-123'],
      },
    ]);
  });

  it('hands every value filled from the environment to the log redaction', () => {
    const servers = parseMcpConfig(
      {
        mcpServers: {
          search: {
            url: 'https://mcp.example.com/mcp?key=${SEARCH_TOKEN}',
            headers: { Authorization: 'Bearer ${LONG_TOKEN}' },
          },
          files: {
            command: 'node',
            args: ['${HOME}', '--level=${LEVEL}'],
            env: { TOKEN: '${LONG_TOKEN}' },
          },
        },
      },
      {
        ...options,
        environment: { ...options.environment, LONG_TOKEN: 'ghp_0123456789abcdef', LEVEL: '2' },
      },
    );
    // "2" is too short to scrub safely; the rest are scrubbed, each once.
    expect(mcpSecretValues(servers)).toEqual(['tok-123', 'ghp_0123456789abcdef', '/home/bot']);
  });

  it('names the server and the key of every problem', () => {
    expect(
      problemsOf({
        mcpServers: {
          typo: { command: 'node', arg: ['x'] },
          both: { command: 'node', url: 'https://x' },
          neither: { args: [] },
          badUrl: { url: 'ftp://example.com' },
          slow: { url: 'https://x.example', timeoutMs: 'soon' },
          secret: { url: 'https://x.example', headers: { Authorization: 'Bearer ${MISSING}' } },
          bad__name: { command: 'node' },
        },
      }),
    ).toEqual([
      'MCP_CONFIG mcpServers.typo: unknown key "arg"',
      'MCP_CONFIG mcpServers.both: give either "command" (a stdio server) or "url" (a Streamable HTTP server)',
      'MCP_CONFIG mcpServers.neither: give either "command" (a stdio server) or "url" (a Streamable HTTP server)',
      'MCP_CONFIG mcpServers.badUrl.url: must be an http:// or https:// URL',
      'MCP_CONFIG mcpServers.slow.timeoutMs: Invalid input: expected number, received string',
      'MCP_CONFIG mcpServers.secret.headers.Authorization: the environment variable MISSING is not set',
      'MCP_CONFIG mcpServers.bad__name: a server name is 1–30 letters, digits, "-" or "_" (no "__")',
    ]);
    expect(problemsOf({ servers: {} })).toEqual([
      'MCP_CONFIG mcpServers: Invalid input: expected record, received undefined',
      'MCP_CONFIG (file): unknown key "servers"',
    ]);
  });

  it('refuses servers that would be downloaded and installed at run time', () => {
    expect(
      problemsOf({
        mcpServers: {
          latest: { command: 'npx', args: ['-y', '@brave/brave-search-mcp-server@latest'] },
          dlx: { command: 'pnpm', args: ['dlx', 'some-server'] },
          python: { command: '/usr/local/bin/uvx', args: ['mcp-server-fetch'] },
        },
      }),
    ).toEqual([
      matching(/^MCP_CONFIG mcpServers\.latest\.command: "npx" downloads and runs packages/),
      matching(/^MCP_CONFIG mcpServers\.dlx\.command: "pnpm dlx" downloads/),
      matching(/^MCP_CONFIG mcpServers\.python\.command: "uvx" downloads/),
    ]);
  });
});
