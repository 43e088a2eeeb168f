import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../core/logger.ts';
import type { McpServerConfig } from './mcp-config.ts';
import { ServerStderr } from './server-stderr.ts';

/** A fresh transport for one connection attempt (a stdio server is a new child process). */
export function createMcpTransport(config: McpServerConfig, logger: Logger): Transport {
  if (config.transport === 'http') {
    return new StreamableHTTPClientTransport(config.url, {
      requestInit: { headers: config.headers },
    });
  }
  // Only the variables given plus a safe minimum (PATH, HOME, …) reach the server: never the
  // bot's own secrets.
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: config.env,
    // The SDK's parameters take no explicit undefined: without a cwd the server starts in ours.
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    stderr: 'pipe',
  });
  const stderr = new ServerStderr({ logger, secrets: config.secrets ?? [] });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  transport.stderr?.on('end', () => stderr.flush());
  return transport;
}

/** Every tool of the server, following pagination cursors. */
export async function listAllTools(client: Client, signal: AbortSignal): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    // The SDK's request params take no explicit undefined: the first page is asked without a cursor.
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { signal });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
