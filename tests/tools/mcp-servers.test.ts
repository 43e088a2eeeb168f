import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext, ToolResult } from '../../src/core/tool.ts';
import type { McpServerConfig } from '../../src/tools/mcp/mcp-config.ts';
import { McpToolSource } from '../../src/tools/mcp/mcp-tool-source.ts';
import { ToolRegistry } from '../../src/tools/tool-registry.ts';
import { startHttpTestServer, type HttpTestServer } from '../mcp-servers/http-server.ts';
import type { ServerEvent } from '../mcp-servers/test-mcp-server.ts';
import { eventually } from './support/eventually.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { recordingLogger, type LogEntry } from './support/recording-logger.ts';
import { containing, like } from './support/matchers.ts';

const STDIO_SERVER = fileURLToPath(new URL('../mcp-servers/stdio-server.ts', import.meta.url));
const CALL_TIMEOUT_MS = 5_000;

const CONTEXT: ToolContext = {
  scopeId: '110000000000000001',
  guildId: '110000000000000001',
  channelId: '310000000000000001',
  userId: '210000000000000001',
  messageId: '410000000000000001',
  turnId: 't',
  memberPermissions: '0',
  locale: 'en-US',
  featureFlags: { 'mcp.local': true },
};

/** One server under test, reached through the registry exactly as the orchestrator will. */
interface Harness {
  clock: ManualClock;
  registry: ToolRegistry;
  source: McpToolSource;
  logs: LogEntry[];
  /** Resolves when the server reports an event of this type for the given request (or any). */
  waitForEvent(type: ServerEvent['type']): Promise<ServerEvent>;
  close(): Promise<void>;
}

function stdioConfig(): McpServerConfig {
  return {
    name: 'local',
    transport: 'stdio',
    command: process.execPath,
    args: [STDIO_SERVER],
    env: {},
    cwd: undefined,
    enabledByDefault: false,
    timeoutMs: CALL_TIMEOUT_MS,
  };
}

async function harness(
  config: McpServerConfig,
  serverEvents: () => Promise<ServerEvent[]>,
): Promise<Harness> {
  const clock = new ManualClock();
  const logger = recordingLogger();
  const source = new McpToolSource({ servers: [config], clock, logger, random: () => 0.5 });
  await source.start();
  const registry = new ToolRegistry({ clock, logger }).addSource(source);
  return {
    clock,
    registry,
    source,
    logs: logger.entries,
    async waitForEvent(type) {
      let found: ServerEvent | undefined;
      await eventually(async () => {
        found = (await serverEvents()).find((event) => event.type === type);
        return found !== undefined;
      });
      return found!;
    },
    close: () => source.close(),
  };
}

/** Events a stdio server wrote to stderr, as the connection logged them. */
function stderrEvents(logs: LogEntry[]): ServerEvent[] {
  return logs
    .filter((entry) => entry.message === 'MCP server stderr')
    .flatMap((entry) => {
      try {
        return [JSON.parse(String(entry.fields.line)) as ServerEvent];
      } catch {
        return [];
      }
    });
}

const transports = [
  {
    transport: 'stdio (a child process)',
    async open(): Promise<Harness> {
      let logs: LogEntry[] = [];
      const opened = await harness(stdioConfig(), () => Promise.resolve(stderrEvents(logs)));
      logs = opened.logs;
      return opened;
    },
  },
  {
    transport: 'Streamable HTTP on loopback',
    async open(): Promise<Harness> {
      const server: HttpTestServer = await startHttpTestServer();
      const opened = await harness(
        {
          name: 'local',
          transport: 'http',
          url: new URL(server.url),
          headers: { 'x-api-key': 'operator-key' },
          enabledByDefault: false,
          timeoutMs: CALL_TIMEOUT_MS,
        },
        () => Promise.resolve(server.events),
      );
      return {
        ...opened,
        async close() {
          await opened.close();
          await server.close();
        },
      };
    },
  },
];

describe.each(transports)('an MCP server over $transport', ({ open }) => {
  let subject: Harness;

  function run(name: string, input: unknown, signal = new AbortController().signal) {
    return subject.registry.execute({ id: 'call', name, input }, CONTEXT, signal);
  }

  beforeAll(async () => {
    subject = await open();
  });
  afterAll(() => subject.close());

  it('lists its tools in the registry under namespaced names, only where enabled', () => {
    const names = subject.registry.specs(CONTEXT).map((spec) => spec.name);
    expect(names).toEqual(
      [
        'local__add_tool',
        'local__echo',
        'local__events',
        'local__fail',
        'local__process_id',
        ...(names.includes('local__crash') ? ['local__crash'] : []),
        'local__wait_for_cancel',
      ].sort(),
    );
    expect(subject.registry.specs({ ...CONTEXT, featureFlags: {} })).toEqual([]);
    const echo = subject.registry.specs(CONTEXT).find((spec) => spec.name === 'local__echo');
    expect(echo).toMatchObject({
      description: 'Repeats the text.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect(subject.source.states()).toEqual([
      like({ name: 'local', status: 'ready', failures: 0 }),
    ]);
  });

  it('calls a tool, and answers bad arguments without a round trip', async () => {
    expect(await run('local__echo', { text: 'hi' })).toEqual({ ok: true, output: 'echo: hi' });
    expect(await run('local__echo', { text: 42 })).toMatchObject({
      ok: false,
      error: containing('Invalid arguments for "local__echo"'),
    });
  });

  it('hands an isError result back to the model as a failed call', async () => {
    expect(await run('local__fail', {})).toEqual({ ok: false, error: 'the disk is full' });
  });

  it('times a slow call out and the server sees the cancellation', async () => {
    const pending = run('local__wait_for_cancel', {});
    const started = await subject.waitForEvent('started');
    await subject.clock.advance(CALL_TIMEOUT_MS);
    expect(await pending).toEqual({
      ok: false,
      error: 'The tool "local__wait_for_cancel" did not finish within 5 s and was stopped.',
    });
    const cancelled = await subject.waitForEvent('cancelled');
    expect(cancelled.requestId).toBe(started.requestId);
  });

  it('propagates an abort mid-call to the server as an MCP cancellation', async () => {
    const before = (await eventsOf()).length;
    const stop = new AbortController();
    const pending = run('local__wait_for_cancel', {}, stop.signal);
    await eventually(async () => (await eventsOf()).length === before + 1);
    stop.abort();
    expect(await pending).toEqual({ ok: false, error: 'Cancelled.' });
    await eventually(async () => (await eventsOf()).length === before + 2);
    const [started, cancelled] = (await eventsOf()).slice(before);
    expect(started).toMatchObject({ type: 'started' });
    expect(cancelled).toEqual({ ...started, type: 'cancelled' });
  });

  it('re-lists its tools on tools/list_changed', async () => {
    expect(await run('local__add_tool', { name: 'greet' })).toEqual({
      ok: true,
      output: 'added greet',
    });
    await eventually(() =>
      subject.registry.specs(CONTEXT).some((spec) => spec.name === 'local__greet'),
    );
    expect(await run('local__greet', {})).toEqual({ ok: true, output: 'hello' });
  });

  async function eventsOf(): Promise<ServerEvent[]> {
    const result: ToolResult = await run('local__events', {});
    return result.ok ? (JSON.parse(result.output) as ServerEvent[]) : [];
  }
});

describe('a crashed stdio MCP server', () => {
  let subject: Harness;

  beforeAll(async () => {
    subject = await harness(stdioConfig(), () => Promise.resolve([]));
  });
  afterAll(() => subject.close());

  function run(name: string, input: unknown) {
    return subject.registry.execute(
      { id: 'call', name, input },
      CONTEXT,
      new AbortController().signal,
    );
  }

  it('is restarted with backoff while its tools report unavailable', async () => {
    const before = await run('local__process_id', {});
    expect(before.ok).toBe(true);

    expect(await run('local__crash', {})).toEqual({
      ok: false,
      error: 'The MCP server "local" stopped during the call.',
    });
    await eventually(() => subject.source.states()[0]?.status === 'restarting');
    expect(subject.registry.specs(CONTEXT)).toEqual([]);
    expect(await run('local__echo', { text: 'x' })).toEqual({
      ok: false,
      error: 'The MCP server "local" is restarting; its tools are unavailable right now.',
    });
    expect(subject.source.states()[0]).toMatchObject({
      failures: 1,
      nextAttemptAt: subject.clock.now() + 1_000,
    });

    await subject.clock.advance(999);
    expect(subject.source.states()[0]?.status).toBe('restarting');
    await subject.clock.advance(1);
    await eventually(() => subject.source.states()[0]?.status === 'ready');
    const after = await run('local__process_id', {});
    expect(after.ok && before.ok && after.output !== before.output).toBe(true);
    expect(await run('local__echo', { text: 'back' })).toEqual({ ok: true, output: 'echo: back' });
  });

  it('waits twice as long after a second crash soon after the first', async () => {
    await run('local__crash', {});
    await eventually(() => subject.source.states()[0]?.status === 'restarting');
    expect(subject.source.states()[0]).toMatchObject({
      failures: 2,
      nextAttemptAt: subject.clock.now() + 2_000,
    });
    await subject.clock.advance(2_000);
    await eventually(() => subject.source.states()[0]?.status === 'ready');
  });
});

describe('a Streamable HTTP MCP server', () => {
  it('receives the headers the operator configured', async () => {
    const server = await startHttpTestServer();
    const source = new McpToolSource({
      servers: [
        {
          name: 'remote',
          transport: 'http',
          url: new URL(server.url),
          headers: { authorization: 'Bearer operator-token' },
          enabledByDefault: true,
          timeoutMs: undefined,
        },
      ],
      clock: new ManualClock(),
      logger: recordingLogger(),
    });
    try {
      await source.start();
      expect(server.headers.length).toBeGreaterThan(0);
      expect(
        server.headers.every((headers) => headers.authorization === 'Bearer operator-token'),
      ).toBe(true);
      expect(source.tools().map((tool) => tool.name)).toContain('remote__echo');
    } finally {
      await source.close();
      await server.close();
    }
  });

  it('that is down at start-up is retried in the background until it answers', async () => {
    const first = await startHttpTestServer();
    const url = new URL(first.url);
    await first.close();
    const clock = new ManualClock();
    const source = new McpToolSource({
      servers: [
        {
          name: 'late',
          transport: 'http',
          url,
          headers: {},
          enabledByDefault: true,
          timeoutMs: undefined,
        },
      ],
      clock,
      logger: recordingLogger(),
      random: () => 0.5,
    });
    let server: HttpTestServer | undefined;
    try {
      await source.start();
      expect(source.states()[0]).toMatchObject({
        status: 'restarting',
        failures: 1,
        nextAttemptAt: clock.now() + 1_000,
      });
      expect(source.tools()).toEqual([]);
      server = await startHttpTestServer(Number(url.port));
      await clock.advance(1_000);
      await eventually(() => source.states()[0]?.status === 'ready');
      expect(source.tools().length).toBeGreaterThan(0);
    } finally {
      await source.close();
      await server?.close();
    }
  });
});
