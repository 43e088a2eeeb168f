import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createTestMcpServer, type ServerEvent } from './test-mcp-server.ts';

export interface HttpTestServer {
  url: string;
  events: ServerEvent[];
  /** Resolves when an event of this type has been seen (now or later). */
  waitFor(type: ServerEvent['type']): Promise<ServerEvent>;
  /** Request headers of every HTTP request received. */
  headers: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * The test MCP server over Streamable HTTP on loopback, one MCP session per client (a
 * reconnecting client gets a new one), as a real deployment would.
 */
export async function startHttpTestServer(port = 0): Promise<HttpTestServer> {
  const events: ServerEvent[] = [];
  const waiters: Array<{ type: ServerEvent['type']; resolve: (event: ServerEvent) => void }> = [];
  const headers: http.IncomingHttpHeaders[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const onEvent = (event: ServerEvent) => {
    events.push(event);
    for (const waiter of waiters.filter((candidate) => candidate.type === event.type)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(event);
    }
  };

  const httpServer = http.createServer((request, response) => {
    headers.push(request.headers);
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });

  async function handle(request: http.IncomingMessage, response: http.ServerResponse) {
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing !== undefined) {
      await existing.handleRequest(request, response);
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(400).end('no session');
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await createTestMcpServer({ name: 'http-test', onEvent }).connect(transport);
    await transport.handleRequest(request, response);
  }

  await new Promise<void>((resolve) => httpServer.listen(port, '127.0.0.1', resolve));
  const address = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    events,
    headers,
    waitFor: (type) => {
      const seen = events.find((event) => event.type === type);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ type, resolve }));
    },
    async close() {
      for (const transport of sessions.values()) await transport.close();
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}
