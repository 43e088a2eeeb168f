/**
 * The embedded database runs its queries on the bot's own thread. A chain of queries (each
 * issued when the one before is answered, as a turn's steps are) must not hold off timers and
 * sockets until the whole chain is done: each query lets the event loop turn first.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';

describe('the embedded database and the event loop', () => {
  let handle: DatabaseHandle;

  beforeAll(async () => {
    handle = await openDatabase({ kind: 'pglite', dataDir: undefined, logger: silentLogger });
  });
  afterAll(() => handle.close());

  it('lets a due timer run between the queries of a chain', async () => {
    const answered: number[] = [];
    let timerRanAfter: number | undefined;
    const timer = new Promise<void>((resolve) => {
      setTimeout(() => {
        timerRanAfter = answered.length;
        resolve();
      }, 0);
    });
    for (let index = 0; index < 20; index += 1) {
      // Each query takes a few milliseconds of this thread.
      await handle.db.execute(sql`select pg_sleep(0.005)`);
      answered.push(index);
    }
    await timer;
    expect(timerRanAfter).toBeDefined();
    expect(timerRanAfter).toBeLessThan(3);
  });
});
