import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

describe.each(testBackends())('migrations on $name', (backend) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.dispose();
    database = undefined;
  });

  it('apply cleanly twice in a row and create every table', async () => {
    database = await backend.open();
    await database.migrate();
    await database.migrate();
    const tables = await database.rawQuery(
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    expect(tables.map((row) => row.table_name)).toEqual([
      'bot_state',
      'channel_settings',
      'channel_summaries',
      'conversation_turns',
      'member_turns',
      'memories',
      'message_claims',
      'reminders',
      'reset_markers',
      'scope_daily_usage',
      'scope_settings',
      'scopes',
      'tool_calls',
    ]);
    const applied = await database.rawQuery(
      sql`select count(*)::int as count from drizzle.__drizzle_migrations`,
    );
    expect(applied[0]?.count).toBeGreaterThan(0);
    const again = await database.rawQuery(
      sql`select count(*)::int as count from drizzle.__drizzle_migrations`,
    );
    expect(again[0]?.count).toBe(applied[0]?.count);
  });

  it('stores Discord snowflakes as text, never as numbers', async () => {
    database = await backend.open();
    await database.migrate();
    const columns = await database.rawQuery(
      sql`select table_name, column_name, data_type from information_schema.columns
          where table_schema = 'public' and (column_name like '%\_id' or column_name = 'id')`,
    );
    const numeric = columns.filter(
      (column) => !['text', 'uuid', 'ARRAY'].includes(String(column.data_type)),
    );
    expect(numeric).toEqual([]);
  });
});
