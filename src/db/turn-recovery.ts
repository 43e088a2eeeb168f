import type { InstanceLiveness, Database } from './database.ts';
import { failStreamingTurnsOf, streamingInstances } from './turn-repository.ts';

/**
 * Fails the turns left `streaming` by processes that are no longer running (a crash or a
 * kill mid-stream), leaving the live turns of other processes alone. Run at start-up and
 * periodically. Returns how many turns were failed.
 *
 * A missing liveness lock proves a death only when the judge is sure of itself
 * (`canJudgePeers`): after a PostgreSQL restart every process has lost its lock and is taking
 * it again, so for a grace period after the server started nobody judges, and a process whose
 * own lock is lost judges nobody. What remains is a process cut off from a server that stayed
 * up: the server drops its session and its lock, a peer may fail its streaming turns, and when
 * it reaches the database again its end-of-turn write (retried, an update by id) replaces that
 * `failed` with what it really delivered. The last write is the owner's.
 */
export async function failAbandonedTurns(
  db: Database,
  liveness: InstanceLiveness,
): Promise<number> {
  const owners = await streamingInstances(db);
  if (owners.length === 0) return 0;
  if (!(await liveness.canJudgePeers())) return 0;
  const dead: Array<string | null> = [];
  for (const owner of owners) {
    if (owner === null || !(await liveness.isAlive(owner))) dead.push(owner);
  }
  return dead.length === 0 ? 0 : failStreamingTurnsOf(db, dead);
}
