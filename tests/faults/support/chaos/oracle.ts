/**
 * The chaos run's judge, from what the loopback Discord shows and what the provider stand-in
 * was asked — never from the bot's own logs or records:
 *
 *   ANSWERED  the mention's token was new text (after the last assistant message) of a model
 *             call whose whole reply a bot message of its channel shows;
 *   TOLD      not answered, and a bot message that is no answer replies to it (or to a mention
 *             that reached the same model call: a coalesced batch is told through its last);
 *   LOST      neither;
 *   TWICE     two delivered answers cover it, or one answer shows in two bot messages;
 *   CONTEXT MISS  a delivered answer missing from the assistant messages of one of its channel's
 *             next CONTEXT_TURNS_CHECKED model calls made after it appeared.
 */

/** How many of a channel's later model calls must carry a delivered answer (well inside the
 * bot's history of 50 messages per channel, so trimming cannot explain a miss). */
export const CONTEXT_TURNS_CHECKED = 3;

export interface MentionRecord {
  index: number;
  token: string;
  messageId: string;
  channelId: string;
  channelName: string;
  authorName: string;
  postedAt: number;
}

export interface ModelCall {
  id: number;
  arrivedAt: number;
  /** Mention tokens in the user messages after the last assistant message. */
  newTokens: string[];
  /** The text of every assistant message the call carried (the conversation so far). */
  assistantTexts: string[];
  /** The whole reply the stand-in sent; undefined when it failed or dropped the stream. */
  reply: string | undefined;
  /** Every text delta the stand-in sent (a dropped stream's first part too). */
  streamed: string;
  /** What the stand-in did: "answered", "stalled 3000 ms", "failed overloaded", "dropped". */
  fate: string;
}

export interface ChannelMessage {
  id: string;
  channelId: string;
  authorIsBot: boolean;
  content: string;
  replyTo: string | undefined;
  /** When it showed its present content (edit time for an edited message). */
  shownAt: number;
}

export type Outcome = 'answered' | 'told' | 'lost';

export interface MentionVerdict {
  mention: MentionRecord;
  outcome: Outcome;
  twice: boolean;
  /** Model calls that carried it as new text. */
  calls: ModelCall[];
  /** Delivered answers covering it. */
  answers: ModelCall[];
  /** Bot messages replying to it (or its batch) that are no answer. */
  notices: ChannelMessage[];
}

export interface ContextMiss {
  channelId: string;
  answer: ModelCall;
  laterCall: ModelCall;
}

export interface Judgement {
  verdicts: MentionVerdict[];
  contextMisses: ContextMiss[];
}

export function compact(text: string): string {
  return text.replace(/\s+/g, '');
}

export function judgeChaos(input: {
  mentions: readonly MentionRecord[];
  calls: readonly ModelCall[];
  messages: readonly ChannelMessage[];
}): Judgement {
  const channelOfToken = new Map(input.mentions.map((m) => [m.token, m.channelId]));
  const botMessages = input.messages.filter((message) => message.authorIsBot);
  const showing = (call: ModelCall): ChannelMessage[] => {
    const channelId = channelOfToken.get(call.newTokens[0] ?? '');
    if (call.reply === undefined || channelId === undefined) return [];
    const reply = compact(call.reply);
    return botMessages.filter(
      (message) => message.channelId === channelId && compact(message.content).includes(reply),
    );
  };
  const delivered = new Map<ModelCall, ChannelMessage[]>();
  for (const call of input.calls) {
    const shown = showing(call);
    if (shown.length > 0) delivered.set(call, shown);
  }
  const modelTexts = input.calls.map((call) => compact(call.streamed)).filter((t) => t !== '');
  // Model text alone (a whole answer, or the part of one a fault cut): never a notice.
  const isModelText = (message: ChannelMessage): boolean => {
    const text = compact(message.content);
    return text !== '' && modelTexts.some((model) => model.includes(text));
  };
  const verdicts = input.mentions.map((mention): MentionVerdict => {
    const calls = input.calls.filter((call) => call.newTokens.includes(mention.token));
    const answers = calls.filter((call) => delivered.has(call));
    const batchMates = new Set(
      calls.flatMap((call) => call.newTokens).map((token) => messageIdOf(input.mentions, token)),
    );
    batchMates.add(mention.messageId);
    const notices = botMessages.filter(
      (message) =>
        message.replyTo !== undefined && batchMates.has(message.replyTo) && !isModelText(message),
    );
    const shownTwice = answers.some((call) => (delivered.get(call)?.length ?? 0) > 1);
    let outcome: Outcome = 'lost';
    if (answers.length > 0) outcome = 'answered';
    else if (notices.length > 0) outcome = 'told';
    return { mention, outcome, twice: answers.length > 1 || shownTwice, calls, answers, notices };
  });
  return { verdicts, contextMisses: contextMisses(input.calls, delivered, channelOfToken) };
}

function messageIdOf(mentions: readonly MentionRecord[], token: string): string | undefined {
  return mentions.find((mention) => mention.token === token)?.messageId;
}

function contextMisses(
  calls: readonly ModelCall[],
  delivered: ReadonlyMap<ModelCall, ChannelMessage[]>,
  channelOfToken: ReadonlyMap<string, string>,
): ContextMiss[] {
  const channelOf = (call: ModelCall) => channelOfToken.get(call.newTokens[0] ?? '');
  const misses: ContextMiss[] = [];
  for (const [answer, shown] of delivered) {
    const channelId = channelOf(answer);
    const shownAt = Math.min(...shown.map((message) => message.shownAt));
    const reply = compact(answer.reply ?? '');
    const later = calls
      .filter((call) => call !== answer && channelOf(call) === channelId)
      .filter((call) => call.arrivedAt > shownAt)
      .sort((a, b) => a.arrivedAt - b.arrivedAt)
      .slice(0, CONTEXT_TURNS_CHECKED);
    for (const laterCall of later) {
      if (!laterCall.assistantTexts.some((text) => compact(text).includes(reply))) {
        misses.push({ channelId: channelId ?? '', answer, laterCall });
      }
    }
  }
  return misses;
}
