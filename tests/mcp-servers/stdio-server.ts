/**
 * The test MCP server over stdio, run as a child process with `process.execPath` (Node strips
 * the types). Events go to stderr, one JSON line each, where the client logs them.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpServer } from './test-mcp-server.ts';

const server = createTestMcpServer({
  name: 'stdio-test',
  onEvent: (event) => process.stderr.write(`${JSON.stringify(event)}\n`),
  crash: () => process.exit(3),
});
await server.connect(new StdioServerTransport());
