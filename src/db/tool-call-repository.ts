import { asc, eq } from 'drizzle-orm';
import type { Database } from './database.ts';
import { toolCalls } from './schema.ts';

export type ToolCallStatus = 'ok' | 'error' | 'timeout' | 'aborted';

/** One tool execution as audited. Summaries arrive capped and scrubbed of secrets. */
export interface ToolCallEntry {
  turnId: string;
  scopeId: string;
  toolName: string;
  status: ToolCallStatus;
  durationMs: number;
  argumentSummary: string;
  resultSummary: string;
}

export async function recordToolCall(db: Database, entry: ToolCallEntry): Promise<void> {
  await db.insert(toolCalls).values({ ...entry, durationMs: Math.round(entry.durationMs) });
}

/** The calls of one assistant turn, in the order they were recorded. */
export async function toolCallsOfTurn(db: Database, turnId: string): Promise<ToolCallEntry[]> {
  const rows = await db
    .select()
    .from(toolCalls)
    .where(eq(toolCalls.turnId, turnId))
    .orderBy(asc(toolCalls.createdAt), asc(toolCalls.id));
  return rows.map((row) => ({
    turnId: row.turnId,
    scopeId: row.scopeId,
    toolName: row.toolName,
    status: row.status,
    durationMs: row.durationMs,
    argumentSummary: row.argumentSummary,
    resultSummary: row.resultSummary,
  }));
}
