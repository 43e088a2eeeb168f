/** Issue 14: the rolling summary's storage — compare-and-set writes, and /reset hiding it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import {
  clearSummary,
  conversationStartOf,
  saveSummary,
  summaryOf,
} from '../../src/db/summary-repository.ts';
import { setResetMarker } from '../../src/db/turn-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '143456789012345678';

describe.each(testBackends())('channel summaries on $name', (backend) => {
  let database: TestDatabase;
  const statements: string[] = [];

  beforeAll(async () => {
    database = await backend.open({ onQuery: (sample) => statements.push(sample.operation) });
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
  }, 180_000);
  afterAll(() => database.dispose());

  it('extends only the summary it was built on, and a reset hides an older one', async () => {
    const channelId = '243456789012345678';
    const first = new Date('2026-01-01T00:00:00Z');
    const second = new Date('2026-01-02T00:00:00Z');
    const save = (content: string, coveredUntil: Date, previous: Date | undefined) =>
      saveSummary(database.db, {
        channelId,
        scopeId: SCOPE,
        content,
        coveredUntil,
        coveredTurns: 20,
        previousCoveredUntil: previous,
      });
    expect(await save('one', first, undefined)).toBe(true);
    expect(await save('racing first', first, undefined)).toBe(false);
    expect(await save('two', second, first)).toBe(true);
    expect(await save('stale', second, first)).toBe(false);
    expect((await summaryOf(database.db, channelId))?.content).toBe('two');

    await setResetMarker(database.db, {
      channelId,
      scopeId: SCOPE,
      resetBy: '1',
      resetAt: new Date('2026-01-03T00:00:00Z'),
    });
    expect(await summaryOf(database.db, channelId)).toBeUndefined();
    const third = new Date('2026-01-04T00:00:00Z');
    expect(await save('after the reset', third, undefined)).toBe(true);
    expect((await summaryOf(database.db, channelId))?.content).toBe('after the reset');
    await clearSummary(database.db, channelId);
    expect(await summaryOf(database.db, channelId)).toBeUndefined();
  });

  it("reads a channel's reset marker and summary for a turn in one statement", async () => {
    const channelId = '243456789012345679';
    const start = () => conversationStartOf(database.db, channelId);
    const before = statements.length;
    expect(await start()).toEqual({ resetAt: undefined, summary: undefined });
    expect(statements.length - before).toBe(1);
    await saveSummary(database.db, {
      channelId,
      scopeId: SCOPE,
      content: 'so far',
      coveredUntil: new Date('2026-01-01T00:00:00Z'),
      coveredTurns: 20,
      previousCoveredUntil: undefined,
    });
    expect(await start()).toEqual({ resetAt: undefined, summary: 'so far' });
    const resetAt = new Date('2026-01-02T03:04:05.678Z');
    await setResetMarker(database.db, { channelId, scopeId: SCOPE, resetBy: '1', resetAt });
    expect(await start()).toEqual({ resetAt, summary: undefined });
  });
});
