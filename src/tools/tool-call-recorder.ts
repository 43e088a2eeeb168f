import type { Database } from '../db/database.ts';
import { recordToolCall, type ToolCallEntry } from '../db/tool-call-repository.ts';

export type { ToolCallEntry, ToolCallStatus } from '../db/tool-call-repository.ts';

/** Where the registry audits each call. Summaries arrive capped and scrubbed. */
export interface ToolCallRecorder {
  record(entry: ToolCallEntry): Promise<void>;
}

/** Records calls into the `tool_calls` table. */
export function databaseToolCallRecorder(db: Database): ToolCallRecorder {
  return { record: (entry) => recordToolCall(db, entry) };
}
