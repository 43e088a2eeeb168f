import type { Database } from '../db/database.ts';
import { finishAssistantTurn, startAssistantTurn } from '../db/turn-repository.ts';
import type { TurnJournal, TurnJournalEnd, TurnJournalStart } from '../stream/turn-journal.ts';

/** The stream's TurnJournal over the database: a `streaming` row at the start, one write at the end. */
export class DatabaseTurnJournal implements TurnJournal {
  private readonly options: {
    db: Database;
    botUserId: string;
    botName: string;
    instanceId: string;
  };

  constructor(options: { db: Database; botUserId: string; botName: string; instanceId: string }) {
    this.options = options;
  }

  async start(turn: TurnJournalStart): Promise<void> {
    await startAssistantTurn(this.options.db, {
      id: turn.turnId,
      scopeId: turn.scopeId,
      channelId: turn.channelId,
      authorId: this.options.botUserId,
      authorName: this.options.botName,
      triggerMessageId: turn.triggerMessageId,
      instanceId: this.options.instanceId,
    });
  }

  async finish(turnId: string, end: TurnJournalEnd): Promise<void> {
    await finishAssistantTurn(this.options.db, turnId, {
      content: end.content,
      discordMessageIds: end.discordMessageIds,
      status: end.status,
      metrics: { ...end.metrics },
    });
  }
}
