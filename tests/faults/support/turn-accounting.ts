/**
 * What became of every member message that triggered the bot, judged from what members can see
 * (the channel) and what the bot recorded (conversation_turns) — never from the bot's own
 * logs. A trigger is LOST when it got neither a reply, nor a notice, nor was stopped:
 *
 *   accepted (a user turn row) → the next assistant turn of its channel covers it (a coalesced
 *     batch is recorded user rows first, then one assistant row):
 *       complete, and its whole recorded text is in the channel    → answered
 *       stopped                                                     → stopped
 *       failed, or complete but cut short on screen, and a notice (a bot message that is
 *         not model text) replies to it or to the turn's trigger      → told
 *       otherwise (no assistant row, still `streaming`, failed in silence, a reply cut short
 *         without a word: a gap the member cannot see)              → lost
 *   not accepted → told when a bot message replies to it, or when its author got a note (a bot
 *     message that belongs to no turn) in that channel — "told once" covers later drops;
 *     otherwise lost.
 */

export interface TriggerRecord {
  id: string;
  channelId: string;
  authorId: string;
}

/** A bot message as the channel shows it now. */
export interface VisibleBotMessage {
  id: string;
  channelId: string;
  /** The message it replies to. */
  replyTo: string | undefined;
  content: string;
  /**
   * It carries a Retry button (a failure notice). Shown in the table only: a Stop button a
   * reply kept (its removal refused by a fault) changes no verdict, which comes from records.
   */
  hasRetry: boolean;
}

export interface RecordedTurn {
  role: 'user' | 'assistant';
  status: 'streaming' | 'complete' | 'stopped' | 'failed';
  channelId: string;
  triggerMessageId: string | null;
  discordMessageIds: readonly string[];
  content: string;
  createdAt: Date;
}

export type TriggerOutcome = 'answered' | 'stopped' | 'told' | 'lost';

const RANK: Record<TriggerOutcome, number> = { answered: 0, stopped: 1, told: 2, lost: 3 };

export interface TriggerVerdict {
  trigger: TriggerRecord;
  outcome: TriggerOutcome;
  /** The bot message the member saw first for it (reply or notice), if any. */
  seen: VisibleBotMessage | undefined;
}

export function accountForTriggers(input: {
  triggers: readonly TriggerRecord[];
  botMessages: readonly VisibleBotMessage[];
  turns: readonly RecordedTurn[];
  /** Every trigger's author, by message id, for notes that reply to another of their messages. */
  authorOf?: (messageId: string) => string | undefined;
  /** What the model was scripted to say: a bot message inside one of these is reply text. */
  modelTexts?: readonly string[];
}): TriggerVerdict[] {
  const modelTexts = (input.modelTexts ?? []).map(compact);
  const isModelText = (message: VisibleBotMessage, turn?: RecordedTurn): boolean => {
    const text = compact(message.content);
    if (text === '') return false;
    return (
      modelTexts.some((model) => model.includes(text)) ||
      (turn !== undefined && compact(turn.content).includes(text))
    );
  };
  const byCreation = [...input.turns].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  const turnMessageIds = new Set(
    byCreation
      .filter((turn) => turn.role === 'assistant')
      .flatMap((turn) => turn.discordMessageIds),
  );
  const replyingTo = (messageId: string | null) =>
    input.botMessages.filter((message) => messageId !== null && message.replyTo === messageId);
  const notes = input.botMessages.filter(
    (message) => !turnMessageIds.has(message.id) && !isModelText(message),
  );

  return input.triggers.map((trigger): TriggerVerdict => {
    const userTurn = byCreation.find(
      (turn) => turn.role === 'user' && turn.triggerMessageId === trigger.id,
    );
    if (userTurn === undefined) {
      const direct = replyingTo(trigger.id)[0];
      const authorOf = input.authorOf ?? (() => undefined);
      const toldAuthor = notes.find(
        (note) =>
          note.channelId === trigger.channelId &&
          note.replyTo !== undefined &&
          authorOf(note.replyTo) === trigger.authorId,
      );
      const seen = direct ?? toldAuthor;
      return { trigger, outcome: seen === undefined ? 'lost' : 'told', seen };
    }
    const covering = byCreation.find(
      (turn) =>
        turn.role === 'assistant' &&
        turn.channelId === trigger.channelId &&
        turn.createdAt.getTime() >= userTurn.createdAt.getTime(),
    );
    // A Retry answers the same trigger with a later turn of its own.
    const candidates = byCreation.filter(
      (turn) =>
        turn === covering || (turn.role === 'assistant' && turn.triggerMessageId === trigger.id),
    );
    const verdicts = candidates.map((turn) => judgeTurn(trigger, turn));
    return (
      verdicts.sort((a, b) => RANK[a.outcome] - RANK[b.outcome])[0] ?? {
        trigger,
        outcome: 'lost',
        seen: undefined,
      }
    );
  });

  function judgeTurn(trigger: TriggerRecord, assistant: RecordedTurn): TriggerVerdict {
    const own = input.botMessages.filter((message) =>
      assistant.discordMessageIds.includes(message.id),
    );
    if (assistant.status === 'stopped') return { trigger, outcome: 'stopped', seen: own[0] };
    if (assistant.status === 'streaming') return { trigger, outcome: 'lost', seen: own[0] };
    const shown = compact(own.map((message) => message.content).join(''));
    if (
      assistant.status === 'complete' &&
      own.length > 0 &&
      shown.includes(compact(assistant.content))
    ) {
      return { trigger, outcome: 'answered', seen: own[0] };
    }
    const notice = [...replyingTo(trigger.id), ...replyingTo(assistant.triggerMessageId)].find(
      (message) => !turnMessageIds.has(message.id) && !isModelText(message, assistant),
    );
    return { trigger, outcome: notice === undefined ? 'lost' : 'told', seen: notice ?? own[0] };
  }
}

/** Text without whitespace: chunking and block joins may move it, never the words. */
function compact(text: string): string {
  return text.replace(/\s+/g, '');
}

/** Assistant turns still `streaming` (a live turn, or one nobody will ever finish). */
export function streamingRecords(turns: readonly RecordedTurn[]): number {
  return turns.filter((turn) => turn.role === 'assistant' && turn.status === 'streaming').length;
}
