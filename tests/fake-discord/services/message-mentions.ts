import { MessageFlags, PermissionFlagsBits } from 'discord-api-types/v10';
import {
  pingsAnyone,
  resolvePings,
  type AllowedMentionsInput,
  type ResolvedPings,
} from '../rules/mentions.ts';
import { hasPermission } from '../rules/permissions.ts';
import type { MessageRecord } from '../state/records.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';

/**
 * Resolves who a create or edit pings — the request's allowed_mentions, or Discord's defaults
 * when it sent none (an edit included) — stores the result as the message's mentions, and
 * records it in the ping log when anyone is pinged.
 */
export function applyMentions(
  context: FakeDiscordContext,
  input: {
    message: MessageRecord;
    allowedMentions: unknown;
    /** The author's permissions in the channel. */
    permissions: bigint;
    operation: 'create' | 'edit';
  },
): ResolvedPings {
  const { world } = context;
  const { message } = input;
  const guild = message.guildId === null ? undefined : world.guild(message.guildId);
  const channel = world.channel(message.channelId);
  const replied =
    message.reference === null ? undefined : world.messages.get(message.reference.messageId);
  const sent = input.allowedMentions !== undefined && input.allowedMentions !== null;
  const pings = resolvePings({
    content: message.content,
    allowedMentions: sent ? (input.allowedMentions as AllowedMentionsInput) : undefined,
    repliedAuthorId:
      replied === undefined || replied.authorId === message.authorId ? null : replied.authorId,
    canMentionEveryone:
      guild !== undefined && hasPermission(input.permissions, PermissionFlagsBits.MentionEveryone),
    isReachableUser: (userId) =>
      guild === undefined
        ? userId === world.bot.userId || channel.recipientIds.includes(userId)
        : guild.members.has(userId),
    roleMentionable: (roleId) => guild?.roles.get(roleId)?.mentionable,
  });
  message.mentions = {
    everyone: pings.everyone || pings.here,
    userIds: pings.userIds,
    roleIds: pings.roleIds,
  };
  if (pingsAnyone(pings)) {
    context.pingLog.record(
      {
        messageId: message.id,
        channelId: message.channelId,
        guildId: message.guildId,
        authorId: message.authorId,
        operation: input.operation,
        at: world.clock.now(),
        allowedMentionsSent: sent,
        silent: (message.flags & MessageFlags.SuppressNotifications) !== 0,
      },
      pings,
    );
  }
  return pings;
}
