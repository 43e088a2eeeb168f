import { eq, sql } from 'drizzle-orm';
import type { Database } from './database.ts';
import { botState } from './schema.ts';

export async function readBotState(db: Database, key: string): Promise<string | undefined> {
  const [row] = await db
    .select({ value: botState.value })
    .from(botState)
    .where(eq(botState.key, key));
  return row?.value;
}

export async function writeBotState(db: Database, key: string, value: string): Promise<void> {
  await db
    .insert(botState)
    .values({ key, value })
    .onConflictDoUpdate({ target: botState.key, set: { value, updatedAt: sql`now()` } });
}
