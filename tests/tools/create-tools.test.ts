import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/core/tool.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { createTools, type Tools } from '../../src/tools/create-tools.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';
import { noDiscordActions } from './support/no-discord-actions.ts';
import { recordingLogger } from './support/recording-logger.ts';

const STDIO_SERVER = fileURLToPath(new URL('../mcp-servers/stdio-server.ts', import.meta.url));
const GUILD = '110000000000000001';
const CONTEXT: ToolContext = {
  scopeId: GUILD,
  guildId: GUILD,
  channelId: '310000000000000001',
  userId: '210000000000000001',
  messageId: '410000000000000001',
  turnId: 't',
  memberPermissions: '0',
  locale: 'en-US',
};

describe.each(testBackends())('createTools on $name', (backend) => {
  let database: TestDatabase;
  let tools: Tools;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
    tools = await createTools({
      db: database.db,
      clock: new ManualClock(),
      logger: recordingLogger(),
      discordActions: noDiscordActions,
      reminderDelivery: { deliver: () => Promise.resolve() },
      mcpServers: [
        {
          name: 'local',
          transport: 'stdio',
          command: process.execPath,
          args: [STDIO_SERVER],
          env: {},
          cwd: undefined,
          enabledByDefault: true,
          timeoutMs: undefined,
        },
      ],
    });
  });
  afterAll(async () => {
    await tools.close();
    await database.dispose();
  });

  it('wires the built-in tools and the connected MCP servers into one registry', async () => {
    const names = tools.registry.specs(CONTEXT).map((spec) => spec.name);
    expect(names).toEqual(expect.arrayContaining(['remember_fact', 'set_reminder', 'local__echo']));
    expect(names).not.toContain('fetch_url');
    expect(tools.mcp.states()).toMatchObject([{ name: 'local', status: 'ready' }]);
    const signal = new AbortController().signal;
    expect(
      await tools.registry.execute(
        { id: 'a', name: 'remember_fact', input: { scope: 'server', fact: 'wired' } },
        CONTEXT,
        signal,
      ),
    ).toMatchObject({ ok: true });
    expect(
      await tools.registry.execute(
        { id: 'b', name: 'local__echo', input: { text: 'x' } },
        CONTEXT,
        signal,
      ),
    ).toEqual({ ok: true, output: 'echo: x' });
  });
});
