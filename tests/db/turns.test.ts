import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { failAbandonedTurns } from '../../src/db/turn-recovery.ts';
import {
  finishAssistantTurn,
  forgetUserMessage,
  recentTurns,
  recordUserTurn,
  resetMarkerOf,
  reviseUserMessage,
  setResetMarker,
  startAssistantTurn,
  turnStartedFor,
  replyFailedFor,
  failStreamingTurnsOf,
} from '../../src/db/turn-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '123456789012345678';
const CHANNEL = '323456789012345678';

describe.each(testBackends())('conversation turns on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
  });
  afterAll(() => database.dispose());

  it('writes an assistant turn once at start and once at the end with every message id', async () => {
    const userTurn = randomUUID();
    await recordUserTurn(database.db, {
      id: userTurn,
      scopeId: SCOPE,
      channelId: CHANNEL,
      authorId: '423456789012345678',
      authorName: 'ann',
      messageId: '523456789012345678',
      content: 'hello',
    });
    const assistantTurn = randomUUID();
    await startAssistantTurn(database.db, {
      id: assistantTurn,
      scopeId: SCOPE,
      channelId: CHANNEL,
      authorId: '623456789012345678',
      authorName: 'bot',
      triggerMessageId: '523456789012345678',
    });
    await finishAssistantTurn(database.db, assistantTurn, {
      content: 'hi there',
      discordMessageIds: ['723456789012345678', '723456789012345679'],
      status: 'complete',
      metrics: { outputTokens: 3 },
    });
    const [latest, previous] = await recentTurns(database.db, CHANNEL, { limit: 2 });
    expect(latest).toMatchObject({
      id: assistantTurn,
      status: 'complete',
      content: 'hi there',
      discordMessageIds: ['723456789012345678', '723456789012345679'],
      metrics: { outputTokens: 3 },
    });
    expect(previous).toMatchObject({ id: userTurn, role: 'user', content: 'hello' });
  });

  it('starts a turn again under its one id: the same row is live and empty again', async () => {
    // A context overflow that sent nothing is retried with less history as the same turn.
    const channel = '333456789012345678';
    const turn = {
      id: randomUUID(),
      scopeId: SCOPE,
      channelId: channel,
      authorId: '623456789012345678',
      authorName: 'bot',
      triggerMessageId: '533456789012345678',
      instanceId: 'first-attempt',
    };
    await startAssistantTurn(database.db, turn);
    await finishAssistantTurn(database.db, turn.id, {
      content: 'partial',
      discordMessageIds: [],
      status: 'failed',
      metrics: { inputTokens: 9 },
    });
    await startAssistantTurn(database.db, { ...turn, instanceId: 'second-attempt' });
    const rows = await recentTurns(database.db, channel, { limit: 10 });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: turn.id,
      status: 'streaming',
      content: '',
      discordMessageIds: [],
      instanceId: 'second-attempt',
    });
    expect(rows[0]?.metrics ?? null).toBeNull();
    expect(rows[0]?.completedAt ?? null).toBeNull();
    await finishAssistantTurn(database.db, turn.id, {
      content: 'whole',
      discordMessageIds: ['733456789012345678'],
      status: 'complete',
      metrics: {},
    });
  });

  it('knows a turn started for a message by its reply row alone (a crash can beat the user row)', async () => {
    const messageId = '543456789012345678';
    expect(await turnStartedFor(database.db, messageId)).toBe(false);
    const reply = randomUUID();
    await startAssistantTurn(database.db, {
      id: reply,
      scopeId: SCOPE,
      channelId: '333456789012345678',
      authorId: '623456789012345678',
      authorName: 'bot',
      triggerMessageId: messageId,
    });
    expect(await turnStartedFor(database.db, messageId)).toBe(true);
    await finishAssistantTurn(database.db, reply, {
      content: 'delivered just before the crash',
      discordMessageIds: [],
      status: 'complete',
      metrics: {},
    });
  });

  it('tells a reply its own turn ended failed from one a restart left streaming', async () => {
    const start = async (triggerMessageId: string, instanceId: string) => {
      const id = randomUUID();
      await startAssistantTurn(database.db, {
        id,
        scopeId: SCOPE,
        channelId: '343456789012345678',
        authorId: '623456789012345678',
        authorName: 'bot',
        triggerMessageId,
        instanceId,
      });
      return id;
    };
    /** The turn writes its own end (what a live process does), with metrics. */
    const end = (id: string, status: 'failed' | 'complete') =>
      finishAssistantTurn(database.db, id, {
        content: `a reply that ended ${status}`,
        discordMessageIds: [`7534567890123456${status.length}`],
        status,
        metrics: {},
      });
    const failedItself = await start('553456789012345671', 'live-instance');
    expect(await replyFailedFor(database.db, '553456789012345671')).toBe(false);
    await end(failedItself, 'failed');
    expect(await replyFailedFor(database.db, '553456789012345671')).toBe(true);
    // Left streaming by a process that died: maintenance marks it failed, with no end written.
    await start('553456789012345672', 'dead-instance');
    await failStreamingTurnsOf(database.db, ['dead-instance']);
    expect(await replyFailedFor(database.db, '553456789012345672')).toBe(false);
    await end(await start('553456789012345673', 'live-instance'), 'complete');
    expect(await replyFailedFor(database.db, '553456789012345673')).toBe(false);
  });

  it('marks turns left streaming by a dead process as failed', async () => {
    const orphan = randomUUID();
    await startAssistantTurn(database.db, {
      id: orphan,
      scopeId: SCOPE,
      channelId: CHANNEL,
      authorId: '623456789012345678',
      authorName: 'bot',
      triggerMessageId: '823456789012345678',
      instanceId: 'crashed-instance',
    });
    expect(await failAbandonedTurns(database.db, database.liveness)).toBe(1);
    const [latest] = await recentTurns(database.db, CHANNEL, { limit: 1 });
    expect(latest).toMatchObject({ id: orphan, status: 'failed' });
    expect(latest?.completedAt).toBeInstanceOf(Date);
    expect(await failAbandonedTurns(database.db, database.liveness)).toBe(0);
  });

  it('returns nothing from before the channel reset marker', async () => {
    const resetAt = await setResetMarker(database.db, {
      channelId: CHANNEL,
      scopeId: SCOPE,
      resetBy: '423456789012345678',
    });
    expect(await resetMarkerOf(database.db, CHANNEL)).toEqual(resetAt);
    expect(await recentTurns(database.db, CHANNEL, { limit: 10, after: resetAt })).toEqual([]);
    expect((await recentTurns(database.db, CHANNEL, { limit: 10 })).length).toBe(3);
  });

  it('reads the turns of one role only, newest first', async () => {
    const assistant = await recentTurns(database.db, CHANNEL, { limit: 10, role: 'assistant' });
    expect(assistant.map((turn) => turn.status)).toEqual(['failed', 'complete']);
    const user = await recentTurns(database.db, CHANNEL, { limit: 10, role: 'user' });
    expect(user.map((turn) => turn.content)).toEqual(['hello']);
  });

  it('revises an edited user message and forgets a deleted one, never touching replies', async () => {
    const channel = '423456789012345678';
    const messageId = '623456789012345678';
    await recordUserTurn(database.db, {
      id: randomUUID(),
      scopeId: SCOPE,
      channelId: channel,
      authorId: 'alice',
      authorName: 'alice',
      messageId,
      content: 'my secret is 1234',
    });
    const replyId = randomUUID();
    await startAssistantTurn(database.db, {
      id: replyId,
      scopeId: SCOPE,
      channelId: channel,
      authorId: 'bot',
      authorName: 'Tomo',
      triggerMessageId: messageId,
      instanceId: 'instance',
    });
    await reviseUserMessage(database.db, messageId, 'my secret is ****');
    expect((await recentTurns(database.db, channel, { limit: 5, role: 'user' }))[0]?.content).toBe(
      'my secret is ****',
    );
    expect(await forgetUserMessage(database.db, messageId)).toBe(1);
    const left = await recentTurns(database.db, channel, { limit: 5 });
    expect(left.map((turn) => turn.id)).toEqual([replyId]);
  });
});
