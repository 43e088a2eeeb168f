import type { Message } from 'discord.js';
import type { Logger } from '../../core/logger.ts';
import { characterRepliesTo } from '../../db/character-message-repository.ts';
import type { Database } from '../../db/database.ts';
import { recordCutReply, replyTurnIdsFor } from '../../db/turn-repository.ts';
import { compareSnowflakes } from '../client/inbound-message.ts';
import type { DeliveryPort } from '../delivery/delivery-port.ts';
import { DiscordMessageTarget } from '../delivery/discord-message-target.ts';
import { allowedMentionsFor, type MessageTarget } from '../delivery/message-target.ts';
import { RETRY_BUTTON_PREFIX } from '../delivery/failure-notice.ts';
import { parseStopButtonId } from '../delivery/stop-button-id.ts';

/** How many messages after the member's are read to find the cut reply. */
const REPLY_SEARCH_LIMIT = 50;

/** Who wrote a reply: the bot itself, or a character through the channel's webhook. */
export interface ReplyAuthors {
  botUserId: string;
  /** Where the characters' messages are recorded with the member message they answered. */
  db: Database;
}

export interface CutReplyOptions extends ReplyAuthors {
  delivery: DeliveryPort;
  logger: Logger;
  /**
   * The target that edits a message the channel's managed webhook posted (a character's), so
   * its Stop button can be taken away; undefined where no webhook can be used (left as it is).
   */
  webhookTarget?: ((message: Message) => MessageTarget | undefined) | undefined;
}

/**
 * A reply whose process died before writing its end stays in the channel as that process left
 * it: what members read of it is recorded as the turn's content, so the next turns' model sees
 * what members saw instead of the question unanswered; and the Stop button it streamed with — a
 * live-looking button on a reply no process writes — is taken away, through the one write path.
 * Best effort: a failure is logged, never thrown.
 */
export async function settleCutReply(
  trigger: Message,
  options: CutReplyOptions,
  found?: readonly Message[],
): Promise<void> {
  try {
    const messages = found ?? (await cutReplyMessages(trigger, options));
    if (messages.length === 0) return;
    await recordCutReply(options.db, {
      triggerMessageId: trigger.id,
      content: messages.map((message) => message.content).join('\n\n'),
      discordMessageIds: messages.map((message) => message.id),
      ended: replyEnded(messages),
    });
    await disarm(trigger, messages.filter(hasStopButton), options);
  } catch (error) {
    options.logger.debug({ err: error }, 'could not settle the messages of a cut reply');
  }
}

/**
 * Whether a reply standing in the channel had ended before its process died: a reply carries
 * its Stop button on its first message from its create until its end (a reply whose end came
 * before its first write never gets one), so none left means the end was delivered — only its
 * record is missing. A button still there means the reply was cut (or its end was, before the
 * button's removal: told as cut, the safe side).
 */
export function replyEnded(messages: readonly Message[]): boolean {
  return messages.length > 0 && !messages.some(hasStopButton);
}

/**
 * The reply's messages, oldest first: the bot's first answers the member's message (a failure
 * notice there means the bot wrote no reply); the ones after it, until the bot answers another
 * message or posts a notice, are its later blocks (members may have written in between). A
 * character's messages cannot answer a message (webhooks cannot reply): they are the reply's by
 * their record (`characterRepliesTo`, written as each was posted), or, for a message posted just
 * before a crash that beat its record, by the Stop button naming the reply's turn.
 */
export async function cutReplyMessages(
  trigger: Pick<Message, 'id' | 'channel'>,
  authors: ReplyAuthors,
): Promise<Message[]> {
  return (await readReply(trigger, authors)).reply;
}

/**
 * The reply to `trigger` standing in the channel (as `cutReplyMessages`), and whether a failure
 * notice (a message of the bot's with Retry) answers the trigger too.
 */
export async function readReply(
  trigger: Pick<Message, 'id' | 'channel'>,
  authors: ReplyAuthors,
): Promise<{ reply: Message[]; told: boolean }> {
  const channel = trigger.channel;
  const [after, characterReplies, turnIds] = await Promise.all([
    // Not cached: a member's message read here before its gateway event is handled would get
    // no messageCreate from discord.js (it emits none for a message already in its cache).
    channel.messages.fetch({ after: trigger.id, limit: REPLY_SEARCH_LIMIT, cache: false }),
    characterRepliesTo(authors.db, trigger.id),
    replyTurnIdsFor(authors.db, trigger.id),
  ]);
  const ordered = [...after.values()].sort((a, b) => compareSnowflakes(a.id, b.id));
  const own = ordered.filter((message) => message.author.id === authors.botUserId);
  const told = own.some(
    (message) => message.reference?.messageId === trigger.id && hasRetryButton(message),
  );
  const ownReply = new Set(botReply(own, trigger.id).map((message) => message.id));
  const characters = new Set(characterReplies);
  const turns = new Set(turnIds);
  const reply = ordered.filter(
    (message) =>
      ownReply.has(message.id) ||
      (!hasRetryButton(message) && (characters.has(message.id) || stopsOneOf(message, turns))),
  );
  return { reply, told };
}

/** The bot's own reply among its messages after the trigger, oldest first (see above). */
function botReply(own: readonly Message[], triggerId: string): Message[] {
  const start = own.findIndex((message) => message.reference?.messageId === triggerId);
  const first = own[start];
  // None, or a failure notice: no reply was cut (the bot's later messages answer others).
  if (first === undefined || hasRetryButton(first)) return [];
  const reply = [first];
  for (const message of own.slice(start + 1)) {
    if (message.reference?.messageId !== undefined || hasRetryButton(message)) break;
    reply.push(message);
  }
  return reply;
}

async function disarm(
  trigger: Message,
  armed: readonly Message[],
  options: CutReplyOptions,
): Promise<void> {
  const channel = trigger.channel;
  if (armed.length === 0 || !channel.isSendable()) return;
  const own = new DiscordMessageTarget(channel);
  for (const reply of armed) {
    // A character's message is edited through the webhook that posted it, never the bot.
    const target = reply.webhookId === null ? own : options.webhookTarget?.(reply);
    if (target === undefined) continue;
    const writer = options.delivery.to(target);
    const edit = {
      content: reply.content,
      allowedMentions: allowedMentionsFor({ allowUserMentions: false }),
      components: [],
    };
    if (!(await writer.takeToken(AbortSignal.timeout(30_000)))) continue;
    const outcome = await writer.attempt(() => writer.edit(reply.id, edit));
    if (outcome.kind === 'failed') {
      options.logger.debug({ err: outcome.failure }, 'stop button of a cut reply left in place');
    }
  }
}

function customIds(message: Message): string[] {
  return message.components.flatMap((row) =>
    'components' in row
      ? row.components.flatMap((component) =>
          'customId' in component && typeof component.customId === 'string'
            ? [component.customId]
            : [],
        )
      : [],
  );
}

function hasRetryButton(message: Message): boolean {
  return customIds(message).some((id) => id.startsWith(RETRY_BUTTON_PREFIX));
}

/** Whether the message carries the Stop button of one of `turnIds`. */
function stopsOneOf(message: Message, turnIds: ReadonlySet<string>): boolean {
  return customIds(message).some((id) => {
    const turnId = parseStopButtonId(id)?.turnId;
    return turnId !== undefined && turnIds.has(turnId);
  });
}

/** A reply's button other than a failure notice's Retry: the Stop button it streamed with. */
function hasStopButton(message: Message): boolean {
  return customIds(message).some((id) => !id.startsWith(RETRY_BUTTON_PREFIX));
}
