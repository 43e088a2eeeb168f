import { dispatchInChannel } from '../gateway/channel-dispatch.ts';
import { channelPayload, threadMemberPayload } from '../payloads/channel-payloads.ts';
import { isThread } from '../rules/permissions.ts';
import type { ChannelRecord } from '../state/records.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';

/**
 * CHANNEL_CREATE/UPDATE/DELETE, or THREAD_* for threads (a new thread carries `newly_created`
 * and the bot's thread membership when it has one). DM channels are never announced unless
 * the option for pre-v8 behaviour is on.
 */
export function dispatchChannelEvent(
  context: FakeDiscordContext,
  change: { kind: 'create' | 'update' | 'delete'; channel: ChannelRecord },
): void {
  const { world } = context;
  const { kind, channel } = change;
  if (channel.guildId === null && !context.options.dispatchDirectMessageChannelCreate) return;
  const thread = isThread(channel);
  const type = `${thread ? 'THREAD' : 'CHANNEL'}_${kind.toUpperCase()}`;
  const payload = channelPayload(world, channel);
  const botIsMember = channel.thread?.memberIds.has(world.bot.userId) === true;
  const data =
    thread && kind === 'create'
      ? {
          ...payload,
          newly_created: true,
          ...(botIsMember && channel.thread !== null
            ? {
                member: threadMemberPayload(channel, {
                  userId: world.bot.userId,
                  joinedAt: channel.thread.createdAt,
                }),
              }
            : {}),
        }
      : thread && kind === 'delete'
        ? {
            id: channel.id,
            guild_id: channel.guildId,
            parent_id: channel.parentId,
            type: channel.type,
          }
        : payload;
  dispatchInChannel(context, { type, channel, build: () => data });
}
