import { ChannelType, type Client } from 'discord.js';
import { DiscordMessageTarget } from './delivery/discord-message-target.ts';
import type { TurnPlace } from './turn-runner.ts';

/** Where a turn in this channel is delivered; undefined when the bot cannot send there. */
export async function placeOfChannel(
  client: Client,
  channelId: string,
): Promise<TurnPlace | undefined> {
  const channel =
    client.channels.cache.get(channelId) ??
    (await client.channels.fetch(channelId).catch(() => null));
  if (channel === null || !channel.isSendable()) return undefined;
  const target = new DiscordMessageTarget(channel);
  if (channel.type === ChannelType.DM) {
    const userName = channel.recipient?.displayName ?? 'someone';
    return { target, persona: { kind: 'dm', userName }, guildLocale: undefined };
  }
  if (!('guild' in channel)) return undefined;
  return {
    target,
    persona: { kind: 'guild', guildName: channel.guild.name, channelName: channel.name },
    guildLocale: channel.guild.preferredLocale,
  };
}
