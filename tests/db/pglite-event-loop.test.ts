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

  it('lets the event loop turn between the queries of a chain', async () => {
    const answered: number[] = [];
    let loopTurnedAfter: number | undefined;
    // Runs at the event loop's next turn, after timers and sockets had theirs.
    const turned = new Promise<void>((resolve) => {
      setImmediate(() => {
        loopTurnedAfter = answered.length;
        resolve();
      });
    });
    for (let index = 0; index < 20; index += 1) {
      await handle.db.execute(sql`select 1`);
      answered.push(index);
    }
    await turned;
    expect(loopTurnedAfter).toBeDefined();
    expect(loopTurnedAfter).toBeLessThan(3);
  });
});
