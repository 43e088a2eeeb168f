/** Speech in the usage tables: seconds heard and characters spoken, per speech model. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { addUsage, dailySpend, usageSummary } from '../../src/db/usage-repository.ts';
import { NO_USAGE } from '../support/usage-entries.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '223456789012345678';
const MEMBER = '323456789012345678';

describe.each(testBackends())('speech usage on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
  });
  afterAll(() => database.dispose());

  it('sums seconds heard and characters spoken per speech model, and their cost in the day', async () => {
    const at = new Date('2026-11-26T12:00:00Z');
    const speech = { ...NO_USAGE, scopeId: SCOPE, memberId: MEMBER, at, turns: 0 };
    await Promise.all([
      addUsage(database.db, {
        ...speech,
        model: 'whisper-1',
        speechSeconds: 12.5,
        cost: 1_250_000,
      }),
      addUsage(database.db, { ...speech, model: 'whisper-1', speechSeconds: 7.5, cost: 750_000 }),
      addUsage(database.db, {
        ...speech,
        model: 'tts-1',
        speechCharacters: 1_000,
        cost: 15_000_000,
      }),
    ]);
    const summary = await usageSummary(database.db, {
      scopeId: SCOPE,
      fromDay: '2026-11-26',
      toDay: '2026-11-26',
    });
    const byModel = Object.fromEntries(summary.byDayAndModel.map((row) => [row.model, row]));
    expect(byModel['whisper-1']).toMatchObject({
      speechSeconds: 20,
      speechCharacters: 0,
      cost: 2_000_000,
      turns: 0,
    });
    expect(byModel['tts-1']).toMatchObject({
      speechSeconds: 0,
      speechCharacters: 1_000,
      cost: 15_000_000,
    });
    expect(await dailySpend(database.db, SCOPE, at)).toEqual({ tokens: 0, cost: 17_000_000 });
  });
});
