/** The rolling summary's storage: compare-and-set writes, and /reset hiding it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { clearSummary, saveSummary, summaryOf } from '../../src/db/summary-repository.ts';
import { setResetMarker } from '../../src/db/turn-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '143456789012345678';

describe.each(testBackends())('channel summaries on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
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
});
