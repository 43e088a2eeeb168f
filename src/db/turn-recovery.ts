import type { InstanceLiveness, Database } from './database.ts';
import { failStreamingTurnsOf, streamingInstances } from './turn-repository.ts';

/**
 * Fails the turns left `streaming` by processes that are no longer running (a crash or a
 * kill mid-stream), leaving the live turns of other processes alone. Run at start-up and
 * periodically. Returns how many turns were failed.
 */
export async function failAbandonedTurns(
  db: Database,
  liveness: InstanceLiveness,
): Promise<number> {
  const owners = await streamingInstances(db);
  const dead: Array<string | null> = [];
  for (const owner of owners) {
    if (owner === null || !(await liveness.isAlive(owner))) dead.push(owner);
  }
  return dead.length === 0 ? 0 : failStreamingTurnsOf(db, dead);
}
