import type { Logger } from '../../core/logger.ts';
import type { Database } from '../../db/database.ts';
import { streamingOwnersIn } from '../../db/turn-repository.ts';
import type { StopMessage } from '../control/control-messages.ts';

/** Which turn a stop is for: the channel's live one, or (the Stop button) one turn only. */
export interface StreamingQuery {
  channelId: string;
  turnId?: string | undefined;
}

export interface StreamingElsewhereOptions {
  db: Database;
  /** This process: its own rows are judged by its StopRegistry, never here. */
  instanceId: string;
  /** Whether the process that owns a row still runs (the database's liveness locks). */
  isAlive(instanceId: string): Promise<boolean>;
  /** Whether a missing liveness lock proves a death now (not right after a server restart). */
  canJudgePeers(): Promise<boolean>;
}

/**
 * Whether another process streams a turn in the channel, by the turns journal: a `streaming`
 * row whose owner still runs. Asked when no process answered a stop in time, so that a busy
 * streaming process (or a slow NOTIFY) does not make the member hear "nothing to stop" while
 * the reply goes on. A row left `streaming` by a dead process is no live reply: its owner's
 * missing liveness lock says so, judged as failAbandonedTurns judges it. While this process
 * cannot judge its peers (its own lock lost, or the server just restarted), an owner with a
 * name counts as alive: for that while, "the stop was sent" rather than "nothing to stop".
 */
export function streamingElsewhere(
  options: StreamingElsewhereOptions,
): (query: StreamingQuery) => Promise<boolean> {
  return async (query) => {
    const owners = await streamingOwnersIn(options.db, query);
    const others = owners.filter(
      (owner): owner is string => owner !== null && owner !== options.instanceId,
    );
    if (others.length === 0) return false;
    if (!(await options.canJudgePeers())) return true;
    for (const owner of new Set(others)) {
      if (await options.isAlive(owner)) return true;
    }
    return false;
  };
}

/**
 * After a stop's answer wait passed in silence: `unconfirmed` when another process streams the
 * turn it is for (it hears the stop late and still applies it), else undefined — nothing live,
 * as before. A journal that cannot be read leaves that old answer (logged).
 */
export async function unconfirmedIfStreaming(
  message: StopMessage,
  options: {
    streamingElsewhere: (query: StreamingQuery) => Promise<boolean>;
    logger: Logger;
    answerWaitMs: number;
  },
): Promise<'unconfirmed' | undefined> {
  const { logger } = options;
  const query = {
    channelId: message.channelId,
    turnId: message.turnId,
  };
  try {
    if (!(await options.streamingElsewhere(query))) return undefined;
  } catch (error) {
    logger.warn({ err: error, ...query }, 'could not look for a reply streaming elsewhere');
    return undefined;
  }
  logger.info(
    { ...query, by: message.by, waitedMs: options.answerWaitMs },
    'a stop sent to another process is not confirmed yet',
  );
  return 'unconfirmed';
}
