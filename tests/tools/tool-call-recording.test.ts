import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext } from '../../src/core/tool.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { toolCallsOfTurn } from '../../src/db/tool-call-repository.ts';
import { startAssistantTurn } from '../../src/db/turn-repository.ts';
import { databaseToolCallRecorder } from '../../src/tools/tool-call-recorder.ts';
import { defineTool } from '../../src/tools/tool-definition.ts';
import { ToolRegistry } from '../../src/tools/tool-registry.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { recordingLogger } from './support/recording-logger.ts';

const GUILD = '110000000000000001';

describe.each(testBackends())('tool call audit on $name', (backend) => {
  let database: TestDatabase;
  const clock = new ManualClock();
  const logger = recordingLogger();
  let registry: ToolRegistry;

  function context(turnId: string): ToolContext {
    return {
      scopeId: GUILD,
      guildId: GUILD,
      channelId: '310000000000000001',
      userId: '210000000000000001',
      messageId: '410000000000000001',
      turnId,
      memberPermissions: '0',
      locale: 'en-US',
    };
  }

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
    await ensureScope(database.db, GUILD, 'guild');
    registry = new ToolRegistry({
      clock,
      logger,
      recorder: databaseToolCallRecorder(database.db),
    }).register(
      defineTool({
        name: 'lookup',
        description: 'Looks something up slowly.',
        input: z.strictObject({ query: z.string(), token: z.string().optional() }),
        availability: { enabledByDefault: true },
        async execute(input, { signal }) {
          await clock.sleep(1_250, signal);
          return `found ${input.query} `.repeat(100);
        },
      }),
    );
  });
  afterAll(() => database.dispose());

  it('records each call of a turn with its status, duration and scrubbed, capped summaries', async () => {
    const turnId = randomUUID();
    await startAssistantTurn(database.db, {
      id: turnId,
      scopeId: GUILD,
      channelId: '310000000000000001',
      authorId: '900000000000000009',
      authorName: 'bot',
      triggerMessageId: '410000000000000001',
    });
    const signal = new AbortController().signal;
    const pending = registry.execute(
      {
        id: 'a',
        name: 'lookup',
        input: { query: 'cats', token: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' },
      },
      context(turnId),
      signal,
    );
    await clock.advance(1_250);
    await pending;
    await registry.execute({ id: 'b', name: 'lookup', input: {} }, context(turnId), signal);

    const calls = await toolCallsOfTurn(database.db, turnId);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      toolName: 'lookup',
      status: 'ok',
      durationMs: 1_250,
      argumentSummary: '{"query":"cats","token":"[redacted]"}',
    });
    expect(calls[0]!.resultSummary.length).toBeLessThanOrEqual(300);
    expect(calls[1]).toMatchObject({ status: 'error', durationMs: 0 });
  });

  it('still answers the model when the audit row cannot be written', async () => {
    const pending = registry.execute(
      { id: 'c', name: 'lookup', input: { query: 'x' } },
      context(randomUUID()), // no such turn: the foreign key refuses the row
      new AbortController().signal,
    );
    await clock.advance(1_250);
    expect(await pending).toMatchObject({ ok: true });
    expect(logger.entries.map((entry) => entry.message)).toContain('could not record a tool call');
  });
});
