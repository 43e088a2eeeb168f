import { ChannelType, PermissionFlagsBits, RESTJSONErrorCodes } from 'discord-api-types/v10';
import { DiscordApiError } from '../rules/discord-error.ts';
import { hasPermission, sendPermissionFor } from '../rules/permissions.ts';
import { retryAfterHeader, seconds } from '../rules/rate-limiter.ts';
import type { ChannelRecord, MessageRecord } from '../state/records.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';
import { embedsOf, type MessageBody, type UploadedFile } from './message-body.ts';

/**
 * May `authorId` post this? DMs: only the two participants, and never to a user who refuses
 * DMs (50007). Guild channels: VIEW_CHANNEL (50001), then SEND_MESSAGES (or
 * SEND_MESSAGES_IN_THREADS) plus EMBED_LINKS for embeds, ATTACH_FILES for files and
 * READ_MESSAGE_HISTORY for replies (50013); a locked thread needs MANAGE_THREADS.
 */
export function checkCanSend(
  context: FakeDiscordContext,
  input: {
    channel: ChannelRecord;
    authorId: string;
    body: MessageBody;
    files: readonly UploadedFile[];
    permissions: bigint;
  },
): void {
  const { world } = context;
  const { channel, permissions } = input;
  if (channel.type === ChannelType.DM) {
    const recipientId = channel.recipientIds[0];
    if (recipientId === undefined) throw DiscordApiError.missingAccess();
    const participant = input.authorId === world.bot.userId || input.authorId === recipientId;
    if (!participant) throw DiscordApiError.missingAccess();
    if (input.authorId === world.bot.userId && !world.user(recipientId).acceptsDirectMessages) {
      throw new DiscordApiError({
        status: 403,
        code: RESTJSONErrorCodes.CannotSendMessagesToThisUser,
        message: 'Cannot send messages to this user',
      });
    }
    return;
  }
  if (!hasPermission(permissions, PermissionFlagsBits.ViewChannel)) {
    throw DiscordApiError.missingAccess();
  }
  const needed =
    sendPermissionFor(channel) |
    (embedsOf(input.body.embeds).length > 0 ? PermissionFlagsBits.EmbedLinks : 0n) |
    (input.files.length > 0 ? PermissionFlagsBits.AttachFiles : 0n) |
    (input.body.message_reference === undefined ? 0n : PermissionFlagsBits.ReadMessageHistory);
  if (!hasPermission(permissions, needed)) throw DiscordApiError.missingPermissions();
  const thread = channel.thread;
  if (thread?.locked === true && !hasPermission(permissions, PermissionFlagsBits.ManageThreads)) {
    throw new DiscordApiError({
      status: 403,
      code: RESTJSONErrorCodes.ThreadLocked,
      message: 'Thread is locked',
    });
  }
}

/**
 * 30046: edits of messages older than an hour are limited per channel. Discord answers 429
 * with the code in the body; the age threshold and figures come from the options.
 */
export function checkOldMessageEdit(context: FakeDiscordContext, message: MessageRecord): void {
  const { world, options, rateLimiter } = context;
  if (world.clock.now() - message.createdAt <= options.oldMessageEdits.ageMs) return;
  const decision = rateLimiter.take(options.buckets.oldMessageEdit, message.channelId);
  if (decision.allowed) return;
  throw new DiscordApiError({
    status: 429,
    code: RESTJSONErrorCodes.MaximumNumberOfEditsToMessagesOlderThanOneHourReached,
    message: 'Maximum number of edits to messages older than 1 hour reached. Try again later.',
    extraBody: { retry_after: seconds(decision.resetAfterMs), global: false },
    headers: {
      'retry-after': retryAfterHeader(decision.resetAfterMs, rateLimiter.timeScale),
      'x-ratelimit-scope': 'user',
    },
  });
}
