import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimDueReminders,
  createReminder,
  nextReminderDueAt,
} from '../../src/db/reminder-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

/** A guild id on shard `shardId` of `shardCount` (`(id >> 22) % count`). */
function guildOnShard(shardId: number, shardCount: number): string {
  return ((BigInt(1_000 * shardCount + shardId) << 22n) | 4_095n).toString();
}

const DM_USER = '333333333333333333';
const now = new Date('2026-05-01T12:00:00Z');

describe.each(testBackends())('reminders of a sharded process on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
    const due = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000);
    const scopes = [
      { id: guildOnShard(0, 2), kind: 'guild' as const, content: 'guild on shard 0', ago: 3 },
      { id: guildOnShard(1, 2), kind: 'guild' as const, content: 'guild on shard 1', ago: 2 },
      { id: DM_USER, kind: 'dm' as const, content: 'a DM', ago: 1 },
    ];
    for (const scope of scopes) {
      await createReminder(database.db, {
        scope: { id: scope.id, kind: scope.kind },
        channelId: '444444444444444444',
        userId: DM_USER,
        messageId: randomUUID(),
        content: scope.content,
        dueAt: due(scope.ago),
        limit: 10,
      });
    }
  });
  afterAll(() => database.dispose());

  it('sees only its shards’ reminders as next due: a guild on its shard, DMs on shard 0', async () => {
    expect(await nextReminderDueAt(database.db, { shardIds: [1], shardCount: 2 })).toEqual(
      new Date(now.getTime() - 2 * 60_000),
    );
    expect(await nextReminderDueAt(database.db)).toEqual(new Date(now.getTime() - 3 * 60_000));
  });

  it('claims only the reminders its shards can deliver', async () => {
    const claim = (shardIds: number[]) =>
      claimDueReminders(database.db, {
        shards: { shardIds, shardCount: 2 },
        now,
        claimToken: randomUUID(),
        staleClaimBefore: new Date(now.getTime() - 60_000),
        limit: 10,
      });
    expect((await claim([1])).map((reminder) => reminder.content)).toEqual(['guild on shard 1']);
    expect((await claim([0])).map((reminder) => reminder.content)).toEqual([
      'guild on shard 0',
      'a DM',
    ]);
  });
});
