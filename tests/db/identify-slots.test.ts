import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeIdentifySlot } from '../../src/db/identify-slot-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

describe.each(testBackends())('IDENTIFY slots on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
  });
  afterAll(() => database.dispose());

  it('gives a key to exactly one of many concurrent takers, then says how long to wait', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => takeIdentifySlot(database.db, { key: 0, windowMs: 60_000 })),
    );
    expect(results.filter((wait) => wait === 0)).toHaveLength(1);
    for (const wait of results.filter((value) => value !== 0)) {
      expect(wait).toBeGreaterThan(50_000);
      expect(wait).toBeLessThanOrEqual(60_000);
    }
  });

  it('keeps keys apart and frees a key once its window has passed', async () => {
    expect(await takeIdentifySlot(database.db, { key: 1, windowMs: 60_000 })).toBe(0);
    expect(await takeIdentifySlot(database.db, { key: 2, windowMs: 0 })).toBe(0);
    // A zero window has always passed: the key is free again at once.
    expect(await takeIdentifySlot(database.db, { key: 2, windowMs: 0 })).toBe(0);
    expect(await takeIdentifySlot(database.db, { key: 1, windowMs: 60_000 })).toBeGreaterThan(0);
  });
});
