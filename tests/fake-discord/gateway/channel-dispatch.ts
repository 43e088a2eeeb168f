import { PermissionFlagsBits } from 'discord-api-types/v10';
import { hasPermission } from '../rules/permissions.ts';
import type { ChannelRecord } from '../state/records.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { GatewaySession } from './gateway-session.ts';
import { intentFor } from './intents.ts';

/**
 * Dispatches an event about something in `channel` to the sessions that would get it from
 * Discord: the intent for its kind (guild or DM), and only if the bot can view the channel.
 */
export function dispatchInChannel(
  context: FakeDiscordContext,
  options: {
    type: string;
    channel: ChannelRecord;
    build: (session: GatewaySession) => unknown;
  },
): void {
  const { world } = context;
  const canView = hasPermission(
    world.permissionsIn(options.channel, world.bot.userId),
    PermissionFlagsBits.ViewChannel,
  );
  if (!canView) return;
  context.gateway.dispatch({
    type: options.type,
    intent: intentFor(options.type, options.channel.guildId !== null),
    guildId: options.channel.guildId,
    build: options.build,
  });
}
