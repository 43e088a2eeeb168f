/** The parent's side of statement-counter.ts: the statements every counted process sent so far. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';

/** The `--import` flag that loads the counter into a bot process. */
export const STATEMENT_COUNTER_FLAG = `--import=${fileURLToPath(new URL('./statement-counter.ts', import.meta.url))}`;
/** A counted process writes its count this often: wait this long for a fresh reading. */
const WRITE_EVERY_MS = 500;

export async function countedStatements(directory: string): Promise<number> {
  await delay(WRITE_EVERY_MS * 2);
  let total = 0;
  try {
    for (const file of readdirSync(directory))
      total += Number(readFileSync(path.join(directory, file), 'utf8')) || 0;
  } catch {
    return 0;
  }
  return total;
}
