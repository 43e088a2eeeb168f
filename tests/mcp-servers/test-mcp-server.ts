import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** Something the server wants a test to know (a call started, a cancellation arrived). */
export type ServerEvent = { type: 'started' | 'cancelled'; tool: string; requestId: string };

/**
 * The MCP server the tests talk to, over stdio or Streamable HTTP. Real SDK, real wire format:
 * echo, a failing tool (isError), a tool that waits until cancelled, one that adds a tool at
 * run time (so the server sends notifications/tools/list_changed), and one that crashes.
 */
export function createTestMcpServer(options: {
  name: string;
  onEvent: (event: ServerEvent) => void;
  crash?: () => void;
}): McpServer {
  const events: ServerEvent[] = [];
  const report = (event: ServerEvent) => {
    events.push(event);
    options.onEvent(event);
  };
  const server = new McpServer({ name: options.name, version: '1.0.0' });

  server.registerTool(
    'echo',
    { description: 'Repeats the text.', inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  server.registerTool(
    'fail',
    { description: 'Always fails, as a result.', inputSchema: {} },
    () => ({ isError: true, content: [{ type: 'text', text: 'the disk is full' }] }),
  );
  server.registerTool(
    'wait_for_cancel',
    { description: 'Runs until the client cancels it.', inputSchema: {} },
    (_args, extra) =>
      new Promise((resolve) => {
        const requestId = String(extra.requestId);
        extra.signal.addEventListener('abort', () => {
          report({ type: 'cancelled', tool: 'wait_for_cancel', requestId });
          resolve({ content: [{ type: 'text', text: 'cancelled' }] });
        });
        report({ type: 'started', tool: 'wait_for_cancel', requestId });
      }),
  );
  server.registerTool(
    'add_tool',
    {
      description: 'Adds a tool named `name` that answers "hello".',
      inputSchema: { name: z.string() },
    },
    ({ name }) => {
      server.registerTool(
        name,
        { description: `Added at run time: ${name}`, inputSchema: {} },
        () => ({
          content: [{ type: 'text', text: 'hello' }],
        }),
      );
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  );
  server.registerTool(
    'events',
    { description: 'What the server saw so far, as JSON.', inputSchema: {} },
    () => ({ content: [{ type: 'text', text: JSON.stringify(events) }] }),
  );
  server.registerTool(
    'process_id',
    { description: 'The pid of the server process.', inputSchema: {} },
    () => ({ content: [{ type: 'text', text: String(process.pid) }] }),
  );
  const crash = options.crash;
  if (crash !== undefined) {
    server.registerTool('crash', { description: 'Exits the process.', inputSchema: {} }, () => {
      crash();
      return { content: [] };
    });
  }
  return server;
}
