import { and, eq, sql } from 'drizzle-orm';
import type { Database } from './database.ts';
import { scopeDailyUsage } from './schema.ts';

/** The UTC day of an instant, as the `date` column stores it. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Adds a turn's tokens to its scope's UTC day (atomic across processes). */
export async function addDailyUsage(
  db: Database,
  usage: { scopeId: string; at: Date; inputTokens: number; outputTokens: number },
): Promise<void> {
  await db
    .insert(scopeDailyUsage)
    .values({
      scopeId: usage.scopeId,
      day: utcDay(usage.at),
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
    })
    .onConflictDoUpdate({
      target: [scopeDailyUsage.scopeId, scopeDailyUsage.day],
      set: {
        inputTokens: sql`${scopeDailyUsage.inputTokens} + ${usage.inputTokens}`,
        outputTokens: sql`${scopeDailyUsage.outputTokens} + ${usage.outputTokens}`,
      },
    });
}

/** Tokens (input + output) a scope spent on the UTC day of `at`. */
export async function dailyUsage(db: Database, scopeId: string, at: Date): Promise<number> {
  const [row] = await db
    .select({
      inputTokens: scopeDailyUsage.inputTokens,
      outputTokens: scopeDailyUsage.outputTokens,
    })
    .from(scopeDailyUsage)
    .where(and(eq(scopeDailyUsage.scopeId, scopeId), eq(scopeDailyUsage.day, utcDay(at))));
  return row === undefined ? 0 : row.inputTokens + row.outputTokens;
}
