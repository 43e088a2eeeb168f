import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Clock, RandomSource } from '../../core/clock.ts';
import { ToolError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { McpServerConfig } from './mcp-config.ts';
import { mcpResultText } from './mcp-result-text.ts';
import { loadMcpSdk, type McpSdk } from './mcp-sdk.ts';
import { ServerStderr } from './server-stderr.ts';

export type McpServerStatus = 'connecting' | 'ready' | 'restarting' | 'stopped';

/** A server's health, for logs and the /doctor command. */
export interface McpServerState {
  name: string;
  transport: 'stdio' | 'http';
  status: McpServerStatus;
  toolCount: number;
  /** Connections lost or failed since start-up. */
  failures: number;
  lastError: string | undefined;
  /** When the next connection attempt is due (epoch ms), while restarting. */
  nextAttemptAt: number | undefined;
}

export interface McpBackoff {
  initialMs: number;
  maxMs: number;
  /** Up this long, a server that fails again starts over at the initial delay. */
  stableAfterMs: number;
}

export const MCP_BACKOFF: McpBackoff = { initialMs: 1_000, maxMs: 60_000, stableAfterMs: 60_000 };

/** The SDK's own request timeout, a backstop only: the registry's clock-driven timeout aborts first. */
const SDK_BACKSTOP_TIMEOUT_MS = 10 * 60_000;
const CONNECT_TIMEOUT_MS = 30_000;
const CLIENT_INFO = { name: 'tomodachi-bot', version: '0.1.0' };

/**
 * One configured MCP server: connects, lists its tools (again on tools/list_changed), runs
 * calls, and — when the connection drops (a stdio server crashed) — reconnects with
 * exponential backoff, offering no tools meanwhile.
 */
export class McpServerConnection {
  readonly name: string;
  readonly #config: McpServerConfig;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: RandomSource;
  readonly #backoff: McpBackoff;
  readonly #onToolsChanged: () => void;
  readonly #lifetime = new AbortController();
  #client: Client | undefined;
  /** Set by the first connection attempt; a live client implies it is. */
  #sdk: McpSdk | undefined;
  #tools: readonly Tool[] = [];
  #status: McpServerStatus = 'connecting';
  #failures = 0;
  #consecutiveFailures = 0;
  #lastError: string | undefined;
  #nextAttemptAt: number | undefined;
  #readySince = 0;
  #loop: Promise<void> | undefined;

  constructor(options: {
    config: McpServerConfig;
    clock: Clock;
    logger: Logger;
    random?: RandomSource | undefined;
    backoff?: Partial<McpBackoff> | undefined;
    onToolsChanged: () => void;
  }) {
    this.name = options.config.name;
    this.#config = options.config;
    this.#clock = options.clock;
    this.#logger = options.logger.child({ mcpServer: this.name });
    this.#random = options.random ?? Math.random;
    this.#backoff = { ...MCP_BACKOFF, ...options.backoff };
    this.#onToolsChanged = options.onToolsChanged;
  }

  /** Starts connecting; resolves after the first attempt (success or not). Never rejects. */
  async start(): Promise<void> {
    const firstAttempt = new Promise<void>((resolve) => {
      this.#loop = this.#connectLoop(resolve);
    });
    await firstAttempt;
  }

  get tools(): readonly Tool[] {
    return this.#status === 'ready' ? this.#tools : [];
  }

  state(): McpServerState {
    return {
      name: this.name,
      transport: this.#config.transport,
      status: this.#status,
      toolCount: this.tools.length,
      failures: this.#failures,
      lastError: this.#lastError,
      nextAttemptAt: this.#status === 'restarting' ? this.#nextAttemptAt : undefined,
    };
  }

  /**
   * Calls a tool. Aborting `signal` cancels the request on the server (notifications/cancelled).
   * An `isError` result comes back as `{ isError: true }`; protocol failures throw ToolError.
   */
  async callTool(
    tool: string,
    input: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ isError: boolean; text: string }> {
    const client = this.#client;
    if (client === undefined || this.#status !== 'ready') {
      throw new ToolError('mcp_unavailable', this.unavailableText());
    }
    let result: CallToolResult;
    try {
      result = (await client.callTool({ name: tool, arguments: input }, undefined, {
        signal,
        timeout: SDK_BACKSTOP_TIMEOUT_MS,
      })) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      const sdk = this.#sdk;
      if (
        sdk !== undefined &&
        error instanceof sdk.McpError &&
        error.code === Number(sdk.ErrorCode.ConnectionClosed)
      ) {
        throw new ToolError(
          'mcp_unavailable',
          `The MCP server "${this.name}" stopped during the call.`,
        );
      }
      const message = error instanceof Error ? error.message : String(error);
      throw new ToolError('mcp_error', `The MCP server "${this.name}" reported: ${message}`);
    }
    return { isError: result.isError === true, text: mcpResultText(result) };
  }

  unavailableText(): string {
    return this.#status === 'restarting'
      ? `The MCP server "${this.name}" is restarting; its tools are unavailable right now.`
      : `The MCP server "${this.name}" is not connected.`;
  }

  async close(): Promise<void> {
    this.#lifetime.abort();
    this.#status = 'stopped';
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
    await this.#loop;
  }

  async #connectLoop(afterFirstAttempt: () => void): Promise<void> {
    for (;;) {
      if (this.#lifetime.signal.aborted) break;
      try {
        await this.#connect();
        this.#nextAttemptAt = undefined;
        afterFirstAttempt();
        return;
      } catch (error) {
        if (this.#lifetime.signal.aborted) break;
        this.#recordFailure(error, 'could not connect to the MCP server');
        afterFirstAttempt();
        await this.#waitBeforeRetry();
      }
    }
    afterFirstAttempt();
  }

  async #connect(): Promise<void> {
    const sdk = await loadMcpSdk();
    this.#sdk = sdk;
    const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
    const transport = createMcpTransport(sdk, this.#config, this.#logger);
    client.onerror = (error) => this.#logger.debug({ err: error }, 'MCP transport error');
    client.onclose = () => this.#onClosed(client);
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      void this.#refreshTools(client);
    });
    try {
      await client.connect(transport, {
        signal: this.#lifetime.signal,
        timeout: CONNECT_TIMEOUT_MS,
      });
      // Set before listing so a tools/list_changed arriving meanwhile is not dropped.
      this.#client = client;
      this.#tools = await listAllTools(client, this.#lifetime.signal);
    } catch (error) {
      this.#client = undefined;
      await client.close().catch(() => undefined);
      throw error;
    }
    this.#status = 'ready';
    this.#readySince = this.#clock.now();
    this.#logger.info({ tools: this.#tools.length }, 'MCP server connected');
    this.#onToolsChanged();
  }

  #onClosed(client: Client): void {
    // Only a live connection restarts; a failed attempt is retried by the connect loop.
    if (client !== this.#client || this.#status !== 'ready' || this.#lifetime.signal.aborted) {
      return;
    }
    this.#client = undefined;
    this.#tools = [];
    if (this.#clock.now() - this.#readySince >= this.#backoff.stableAfterMs) {
      this.#consecutiveFailures = 0;
    }
    this.#recordFailure(undefined, 'MCP server connection lost; restarting');
    this.#onToolsChanged();
    this.#loop = (async () => {
      await this.#waitBeforeRetry();
      await this.#connectLoop(() => undefined);
    })();
  }

  #recordFailure(error: unknown, message: string): void {
    this.#failures += 1;
    this.#consecutiveFailures += 1;
    this.#status = 'restarting';
    this.#lastError = error instanceof Error ? error.message.slice(0, 300) : 'connection closed';
    this.#logger.warn({ err: error, failures: this.#failures }, message);
  }

  async #waitBeforeRetry(): Promise<void> {
    const exponent = Math.max(0, this.#consecutiveFailures - 1);
    const base = Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** exponent);
    // ±20 % jitter so many bots restarting together do not hammer a server in step.
    const delay = Math.round(base * (0.8 + 0.4 * this.#random()));
    this.#nextAttemptAt = this.#clock.now() + delay;
    await this.#clock.sleep(delay, this.#lifetime.signal).catch(() => undefined);
  }

  /** Re-lists after tools/list_changed; overlapping notifications coalesce into one more pass. */
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;

  async #refreshTools(client: Client): Promise<void> {
    if (this.#refreshing !== undefined) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    this.#refreshing = (async () => {
      do {
        this.#refreshAgain = false;
        try {
          const tools = await listAllTools(client, this.#lifetime.signal);
          if (client !== this.#client) return;
          this.#tools = tools;
          this.#logger.info({ tools: tools.length }, 'MCP server tools changed');
          this.#onToolsChanged();
        } catch (error) {
          this.#logger.warn({ err: error }, 'could not re-list MCP tools');
        }
      } while (this.#refreshAgain);
    })();
    try {
      await this.#refreshing;
    } finally {
      this.#refreshing = undefined;
    }
  }
}

/** A fresh transport for one connection attempt (a stdio server is a new child process). */
function createMcpTransport(sdk: McpSdk, config: McpServerConfig, logger: Logger): Transport {
  if (config.transport === 'http') {
    return new sdk.StreamableHTTPClientTransport(config.url, {
      requestInit: { headers: config.headers },
    });
  }
  // Only the variables given plus a safe minimum (PATH, HOME, …) reach the server: never the
  // bot's own secrets.
  const transport = new sdk.StdioClientTransport({
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
async function listAllTools(client: Client, signal: AbortSignal): Promise<Tool[]> {
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
