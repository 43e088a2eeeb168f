import type { TurnMetrics } from './turn-metrics.ts';

export type TurnEndStatus = 'complete' | 'stopped' | 'failed';

export interface TurnJournalStart {
  turnId: string;
  scopeId: string;
  channelId: string;
  /** The member message being answered. */
  triggerMessageId: string;
  /** The character speaking the turn (the reply is recorded under its name); none: the bot. */
  speaker?: { id: string; name: string } | undefined;
}

export interface TurnJournalEnd {
  /** The model's full text for the turn (for a stopped turn: what it had written). */
  content: string;
  /** Every Discord message the reply spans, in order. */
  discordMessageIds: readonly string[];
  status: TurnEndStatus;
  metrics: TurnMetrics;
}

/**
 * Where a turn is recorded: `start` once when the turn begins — the bot's
 * implementation inserts a `streaming` row so a crash leaves evidence — and `finish` exactly
 * once at its end with the full text, every message id, the final status and metrics. Nothing
 * is written per delta; streaming state lives in memory. The bot implements it with
 * `startAssistantTurn` / `finishAssistantTurn` of `src/db/turn-repository.ts`.
 */
export interface TurnJournal {
  start(turn: TurnJournalStart): Promise<void>;
  finish(turnId: string, end: TurnJournalEnd): Promise<void>;
}
