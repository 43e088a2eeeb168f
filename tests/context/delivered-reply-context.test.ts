/**
 * What the model sees matches what members saw: a reply delivered to the channel whose record
 * failed (the database was cut while the turn's end was written) is in the next turn's model
 * request, and its record is written once the database is back. On a PostgreSQL cluster of
 * the test's own, stopped at the moment of the write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryMessage } from '../../src/bot/client/inbound-message.ts';
import { ChannelHistory } from '../../src/bot/context/channel-history.ts';
import { buildRequest, prepareTurn } from '../../src/bot/context/turn-context.ts';
import { UnrecordedReplies } from '../../src/bot/context/unrecorded-replies.ts';
import { DatabaseTurnJournal } from '../../src/bot/turns/database-turn-journal.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { defaultScopeSettings } from '../../src/core/settings.ts';
import { contextTurnsSinceReset } from '../../src/db/context-turn-repository.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { ModelCatalog } from '../../src/providers/model-catalog.ts';
import type { ResolvedModel } from '../../src/providers/provider-factory.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import type { TurnMetrics } from '../../src/stream/turn/turn-metrics.ts';
import { findPostgresBinaries, startPgCluster, type PgCluster } from '../support/pg-cluster.ts';

const available = findPostgresBinaries();
const SCOPE = '423456789012345678';
const CHANNEL = '523456789012345678';
const BOT = '623456789012345678';
const MEMBER = '723456789012345678';
const METRICS = { durationMs: 1, inputTokens: 10, outputTokens: 20 } as unknown as TurnMetrics;
const ANSWER = 'The lighthouse keeper was called Ada.';

function message(id: string, authorId: string, content: string, at: number): HistoryMessage {
  const fromBot = authorId === BOT;
  return {
    id,
    authorId,
    authorName: fromBot ? 'Tomodachi' : 'alice',
    authorIsBot: fromBot,
    content,
    createdAt: at,
    attachments: [],
  };
}

describe.skipIf('skipped' in available)('a reply delivered while its record failed', () => {
  let cluster: PgCluster;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    cluster = await startPgCluster();
    handle = await openDatabase({
      kind: 'postgres',
      url: cluster.url,
      logger: silentLogger,
      poolSize: 2,
    });
    await handle.migrate();
    await ensureScope(handle.db, SCOPE, 'guild');
  }, 120_000);
  afterAll(async () => {
    await handle?.close().catch(() => undefined);
    await cluster?.dispose();
  });

  it("is in the next turn's model request, and recorded once the database is back", async () => {
    const clock = new ManualClock(Date.now());
    const unrecorded = new UnrecordedReplies();
    const journal = new DatabaseTurnJournal({
      db: handle.db,
      botUserId: BOT,
      botName: 'Tomodachi',
      instanceId: 'instance-a',
      clock,
      finishRetryMs: 0,
      unrecorded,
    });
    const at = Date.now();
    const question = message('1000000000000000001', MEMBER, 'who kept the lighthouse?', at);
    const delivered = message('1000000000000000002', BOT, ANSWER, at + 1_000);
    const next = message('1000000000000000003', MEMBER, 'and what did Ada do?', at + 2_000);
    const turnId = '01900000-0000-7000-8000-000000000001';
    await journal.start({
      turnId,
      scopeId: SCOPE,
      channelId: CHANNEL,
      triggerMessageId: question.id,
    });
    // Members saw the reply; the database goes away as its end is written.
    await cluster.stop();
    const end = { content: ANSWER, discordMessageIds: [delivered.id], metrics: METRICS };
    await expect(journal.finish(turnId, { ...end, status: 'complete' })).rejects.toThrow();
    await cluster.start();

    const history = new ChannelHistory({
      perChannel: 50,
      maxChannels: 10,
      fetchRecent: () => Promise.resolve([next, delivered, question]),
    });
    const model: ResolvedModel = {
      chatModel: undefined as never,
      provider: 'openai',
      modelId: 'gpt-4o-mini',
      info: new ModelCatalog().lookup('openai', 'gpt-4o-mini'),
      keySource: 'operator',
    };
    const prepared = await prepareTurn({
      db: handle.db,
      history,
      settings: defaultScopeSettings(SCOPE),
      model,
      messages: [
        {
          ...next,
          channelId: CHANNEL,
          guildId: SCOPE,
          isDM: false,
          mentionsBot: true,
          repliesToBot: false,
          replyToMessageId: undefined,
        },
      ],
      botUserId: BOT,
      place: { kind: 'guild', guildName: 'Guild', channelName: 'general' },
      now: new Date(at + 3_000),
      download: () => Promise.reject(new Error('no downloads here')),
      logger: silentLogger,
      signal: new AbortController().signal,
      unrecorded,
    });
    const { request } = await buildRequest({ prepared, model, toolSpecs: [], dropOldest: 0 });
    const assistantTexts = request.messages
      .filter((entry) => entry.role === 'assistant')
      .map((entry) => JSON.stringify(entry.content));
    expect(assistantTexts.join('\n')).toContain(ANSWER);

    const stored = await contextTurnsSinceReset(handle.db, CHANNEL, {
      recent: 10,
      important: 0,
      pinned: 0,
    });
    expect(stored.find((turn) => turn.id === turnId)).toMatchObject({
      status: 'complete',
      content: ANSWER,
      discordMessageIds: [delivered.id],
    });
  }, 120_000);
});
