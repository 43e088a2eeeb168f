/**
 * A turn's opening written ahead of its stream (DatabaseTurnJournal.begin, beside the context
 * read): the member's message and the reply's row in one statement, the reply sorting after
 * what it answers; the stream's start finds it written without a statement of its own; a turn
 * that ends before its stream runs leaves no reply row behind; a start that failed fails the
 * stream's; the context read beside it does not take the turn's own row for a reply cut short.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseTurnJournal } from '../../src/bot/turns/database-turn-journal.ts';
import type { HistoryMessage } from '../../src/bot/client/inbound-message.ts';
import { ChannelHistory } from '../../src/bot/context/channel-history.ts';
import { prepareTurn, type PreparedTurn } from '../../src/bot/context/turn-context.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { defaultScopeSettings } from '../../src/core/settings.ts';
import { contextTurnsSinceReset } from '../../src/db/context-turn-repository.ts';
import { ModelCatalog } from '../../src/providers/model-catalog.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { openTurn, type UserTurnInput } from '../../src/db/turn-repository.ts';
import { conversationTurns } from '../../src/db/schema.ts';
import { timeOrderedId } from '../../src/core/time-ordered-id.ts';
import { TurnMetricsRecorder } from '../../src/stream/turn/turn-metrics.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '153456789012345680';
const CHANNEL = '253456789012345680';

describe.each(testBackends())('a journal start written ahead on $name', (backend) => {
  let database: TestDatabase;
  const statements: string[] = [];

  beforeAll(async () => {
    database = await backend.open({ onQuery: (sample) => statements.push(sample.operation) });
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
  });
  afterAll(() => database.dispose());

  function journal(): DatabaseTurnJournal {
    return new DatabaseTurnJournal({
      db: database.db,
      botUserId: 'bot',
      botName: 'Tomodachi',
      instanceId: 'instance-1',
      clock: new ManualClock(),
    });
  }

  function startOf(turnId: string) {
    return { turnId, scopeId: SCOPE, channelId: CHANNEL, triggerMessageId: `m-${turnId}` };
  }

  async function rowOf(turnId: string) {
    const [row] = await database.db
      .select({ status: conversationTurns.status, content: conversationTurns.content })
      .from(conversationTurns)
      .where(eq(conversationTurns.id, turnId));
    return row;
  }

  it("lets the stream's start take the row begun ahead, without another write", async () => {
    const turns = journal();
    const turnId = timeOrderedId();
    turns.begin(startOf(turnId), []);
    await turns.start(startOf(turnId));
    expect(await rowOf(turnId)).toEqual({ status: 'streaming', content: '' });
    const before = statements.length;
    await turns.abandon(turnId); // the stream took it: nothing to undo
    expect(statements.length - before).toBe(0);
    await turns.finish(turnId, {
      content: 'hello',
      discordMessageIds: ['1'],
      status: 'complete',
      metrics: new TurnMetricsRecorder(new ManualClock()).snapshot(),
    });
    expect(await rowOf(turnId)).toEqual({ status: 'complete', content: 'hello' });
  });

  function userTurn(id: string, content: string): UserTurnInput {
    return {
      id,
      scopeId: SCOPE,
      channelId: CHANNEL,
      authorId: 'member',
      authorName: 'alice',
      messageId: `discord-${id}`,
      content,
    };
  }

  async function channelTurns(channelId: string) {
    const turns = await contextTurnsSinceReset(database.db, channelId, {
      recent: 10,
      important: 0,
      pinned: 0,
    });
    return turns.map((turn) => ({ role: turn.role, content: turn.content, status: turn.status }));
  }

  it("writes the member's message and the reply's row in one statement, the reply after it", async () => {
    const channelId = '253456789012345681';
    const turns = journal();
    const messageId = timeOrderedId();
    const turnId = timeOrderedId();
    const before = statements.length;
    turns.begin({ ...startOf(turnId), channelId }, [{ ...userTurn(messageId, 'hi'), channelId }]);
    await turns.start({ ...startOf(turnId), channelId });
    expect(statements.length - before).toBe(1);
    expect(await channelTurns(channelId)).toEqual([
      { role: 'user', content: 'hi', status: 'complete' },
      { role: 'assistant', content: '', status: 'streaming' },
    ]);
    // Sent again (a retry after a lost answer): nothing twice, nothing refused.
    await openTurn(database.db, {
      userTurn: { ...userTurn(messageId, 'hi'), channelId },
      reply: {
        id: turnId,
        scopeId: SCOPE,
        channelId,
        authorId: 'bot',
        authorName: 'Tomodachi',
        triggerMessageId: `m-${turnId}`,
      },
    });
    expect(await channelTurns(channelId)).toHaveLength(2);
  });

  it('writes a batch of messages in order, then the reply', async () => {
    const channelId = '253456789012345682';
    const turns = journal();
    const first = timeOrderedId();
    const second = timeOrderedId();
    const turnId = timeOrderedId();
    turns.begin({ ...startOf(turnId), channelId }, [
      { ...userTurn(first, 'one'), channelId },
      { ...userTurn(second, 'two'), channelId },
    ]);
    await turns.start({ ...startOf(turnId), channelId });
    expect((await channelTurns(channelId)).map((turn) => turn.content)).toEqual(['one', 'two', '']);
  });

  it("keeps the turn's own streaming row out of its context: a Retry's failure notice stays a notice", async () => {
    const channelId = '253456789012345683';
    const turns = journal();
    const at = Date.now();
    const member = { authorName: 'alice', authorIsBot: false, attachments: [] };
    const question: HistoryMessage = {
      ...member,
      id: '1100000000000000001',
      authorId: 'member',
      content: 'who kept the lighthouse?',
      createdAt: at,
    };
    // The first try failed: its notice replies to the question and stands in the channel.
    const notice: HistoryMessage = {
      id: '1100000000000000002',
      authorId: 'bot',
      authorName: 'Tomodachi',
      authorIsBot: true,
      attachments: [],
      content: 'I could not reach the AI provider. Please try again.',
      replyToMessageId: question.id,
      createdAt: at + 1_000,
    };
    // The Retry's turn: its row is written beside the read, so the read sees it streaming.
    const turnId = timeOrderedId();
    turns.begin({ ...startOf(turnId), channelId, triggerMessageId: question.id }, []);
    await turns.start({ ...startOf(turnId), channelId, triggerMessageId: question.id });
    const prepare = (ownTurnId: string | undefined) =>
      prepareTurn({
        db: database.db,
        history: new ChannelHistory({
          perChannel: 50,
          maxChannels: 10,
          fetchRecent: () => Promise.resolve([notice, question]),
        }),
        settings: defaultScopeSettings(SCOPE),
        model: {
          chatModel: undefined as never,
          provider: 'openai',
          modelId: 'gpt-4o-mini',
          info: new ModelCatalog().lookup('openai', 'gpt-4o-mini'),
          keySource: 'operator',
        },
        messages: [
          {
            ...question,
            channelId,
            guildId: SCOPE,
            isDM: false,
            mentionsBot: true,
            repliesToBot: false,
            replyToMessageId: undefined,
          },
        ],
        botUserId: 'bot',
        place: { kind: 'guild', guildName: 'Guild', channelName: 'general' },
        now: new Date(at + 2_000),
        download: () => Promise.reject(new Error('no downloads here')),
        logger: silentLogger,
        signal: new AbortController().signal,
        turnId: ownTurnId,
      });
    const texts = (prepared: PreparedTurn) =>
      prepared.history.map((entry) => entry.text).join('\n');
    expect(texts(await prepare(turnId))).not.toContain(notice.content);
    // Without knowing its own row, the notice would read as this reply, cut off.
    expect(texts(await prepare(undefined))).toContain(notice.content);
  });

  it('leaves no reply row for a turn that ended before its stream ran, and keeps the message', async () => {
    const turns = journal();
    const messageId = timeOrderedId();
    const turnId = timeOrderedId();
    turns.begin(startOf(turnId), [userTurn(messageId, 'are you there?')]);
    await turns.abandon(turnId);
    expect(await rowOf(turnId)).toBeUndefined();
    expect(await rowOf(messageId)).toEqual({ status: 'complete', content: 'are you there?' });
  });

  it("fails the stream's start when the start begun ahead could not be written", async () => {
    const turns = journal();
    const turnId = timeOrderedId();
    // No such scope: the row's foreign key refuses it, a failure that is not transient.
    turns.begin({ ...startOf(turnId), scopeId: 'no-such-scope' }, []);
    await expect(turns.start(startOf(turnId))).rejects.toThrow();
    await turns.abandon(turnId);
    expect(await rowOf(turnId)).toBeUndefined();
  });
});
