import { DiscordApiError } from '../rules/discord-error.ts';
import type { ChannelRecord, MessageRecord } from '../state/records.ts';
import type { World } from '../state/world.ts';

/**
 * A reply's `message_reference`, resolved: the referenced message must exist in the same
 * channel, or the request fails with 50035 `REPLIES_UNKNOWN_MESSAGE` — unless the client set
 * `fail_if_not_exists: false`, in which case the message is sent as a plain message.
 */
export function resolveReference(
  world: World,
  input: { channel: ChannelRecord; reference: unknown },
): MessageRecord['reference'] {
  const { channel, reference: raw } = input;
  if (raw === undefined || raw === null) return null;
  const reference = raw as {
    message_id?: unknown;
    channel_id?: unknown;
    fail_if_not_exists?: unknown;
  };
  const messageId = typeof reference.message_id === 'string' ? reference.message_id : undefined;
  const target = messageId === undefined ? undefined : world.messages.get(messageId);
  const sameChannel =
    target !== undefined &&
    target.deletedAt === null &&
    target.channelId === channel.id &&
    (reference.channel_id === undefined || reference.channel_id === channel.id);
  if (!sameChannel || target === undefined) {
    if (reference.fail_if_not_exists === false) return null;
    throw DiscordApiError.invalidFormBody([
      {
        path: ['message_reference'],
        error: { code: 'REPLIES_UNKNOWN_MESSAGE', message: 'Unknown message' },
      },
    ]);
  }
  return { messageId: target.id, channelId: channel.id, guildId: channel.guildId };
}
