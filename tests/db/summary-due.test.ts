/**
 * The rolling summary's check after every turn: a count of the channel's unsummarized turns,
 * bounded, that reads no turn; the turns themselves are read only once a summary is due.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { defaultScopeSettings } from '../../src/core/settings.ts';
import type { DailyBudget } from '../../src/bot/limits/daily-budget.ts';
import { RollingSummarizer } from '../../src/bot/context/summary/rolling-summarizer.ts';
import { conversationTurns, type TurnStatus } from '../../src/db/schema.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { saveSummary, unsummarizedTurns } from '../../src/db/summary-repository.ts';
import { setResetMarker } from '../../src/db/turn-repository.ts';
import type { ProviderFactory } from '../../src/providers/provider-factory.ts';
import { SecretBox } from '../../src/security/secret-box.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '143456789012345679';
const START = Date.UTC(2026, 0, 5, 12, 0, 0);
const SECOND = 1_000;

describe.each(testBackends())('the summary check on $name', (backend) => {
  let database: TestDatabase;
  let channels = 0;
  const statements: string[] = [];

  beforeAll(async () => {
    database = await backend.open({ onQuery: (sample) => statements.push(sample.operation) });
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
  });
  afterAll(() => database.dispose());

  /** A fresh channel with `statuses.length` turns, one a second from START. */
  async function channelWith(statuses: readonly TurnStatus[]): Promise<string> {
    channels += 1;
    const channelId = `24345678901234${String(channels).padStart(4, '0')}`;
    if (statuses.length === 0) return channelId;
    await database.db.insert(conversationTurns).values(
      statuses.map((status, index) => ({
        id: randomUUID(),
        scopeId: SCOPE,
        channelId,
        role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
        authorId: 'member',
        content: `turn ${index}`,
        status,
        createdAt: new Date(START + index * SECOND),
      })),
    );
    return channelId;
  }

  it('counts the complete and stopped turns beyond the summary, up to a bound', async () => {
    const channelId = await channelWith([
      ...Array.from({ length: 10 }, () => 'complete' as const),
      'stopped',
      'failed',
      'streaming',
      'complete',
    ]);
    const count = (atMost: number) => unsummarizedTurns(database.db, { channelId, atMost });
    expect(await count(100)).toBe(12);
    expect(await count(5)).toBe(5);
    await saveSummary(database.db, {
      channelId,
      scopeId: SCOPE,
      content: 'the first four',
      coveredUntil: new Date(START + 3 * SECOND),
      coveredTurns: 4,
      previousCoveredUntil: undefined,
    });
    expect(await count(100)).toBe(8);
  });

  it('counts only after a reset, ignoring a summary from before it', async () => {
    const channelId = await channelWith(Array.from({ length: 10 }, () => 'complete' as const));
    await saveSummary(database.db, {
      channelId,
      scopeId: SCOPE,
      content: 'the first two',
      coveredUntil: new Date(START + SECOND),
      coveredTurns: 2,
      previousCoveredUntil: undefined,
    });
    await setResetMarker(database.db, {
      channelId,
      scopeId: SCOPE,
      resetBy: 'member',
      resetAt: new Date(START + 6.5 * SECOND),
    });
    expect(await unsummarizedTurns(database.db, { channelId, atMost: 100 })).toBe(3);
  });

  /** A summarizer whose model is never reached (its key is refused); `asked` tells if it tried. */
  function summarizer(cadence: { everyTurns: number; keepRecent: number }) {
    const asked: string[] = [];
    const summaries = new RollingSummarizer({
      db: database.db,
      providers: {
        target: () => ({ provider: 'openai' }),
        resolve: () => {
          asked.push('resolve');
          throw new Error('no key in this test');
        },
      } as unknown as ProviderFactory,
      secretBox: new SecretBox(Buffer.alloc(32, 7)),
      dailyBudget: { exhausted: () => Promise.resolve(false) } as unknown as DailyBudget,
      loadSettings: (scopeId) => Promise.resolve(defaultScopeSettings(scopeId)),
      logger: silentLogger,
      ...cadence,
      signal: new AbortController().signal,
    });
    /** The statements one after-turn check sends. */
    const check = async (channelId: string) => {
      const before = statements.length;
      summaries.schedule({ channelId, scopeId: SCOPE });
      await summaries.idle(channelId);
      return statements.length - before;
    };
    return { asked, check };
  }

  it('checks in one statement and reads the turns only once a summary is due', async () => {
    const { asked, check } = summarizer({ everyTurns: 4, keepRecent: 6 });
    // 9 turns: 3 beyond the 6 kept recent, fewer than the 4 a call folds in.
    const notDue = await channelWith(Array.from({ length: 9 }, () => 'complete' as const));
    expect(await check(notDue)).toBe(1);
    expect(asked).toEqual([]);
    // 10 turns: 4 to fold in, so the summary and the turns are read and the model is asked.
    const due = await channelWith(Array.from({ length: 10 }, () => 'complete' as const));
    expect(await check(due)).toBe(3);
    expect(asked).toEqual(['resolve']);
  });

  it('skips the checks of the turns that cannot make a summary due yet', async () => {
    const { asked, check } = summarizer({ everyTurns: 6, keepRecent: 6 });
    // 7 turns: 1 beyond the 6 kept recent, 5 short of a call; a turn stores at least 2, so
    // the next 2 turns cannot make it due and are not checked; the third is.
    const channelId = await channelWith(Array.from({ length: 7 }, () => 'complete' as const));
    const counted = [];
    for (let turn = 0; turn < 4; turn += 1) counted.push(await check(channelId));
    expect(counted).toEqual([1, 0, 0, 1]);
    expect(asked).toEqual([]);
  });
});
