import { ChannelType, type Client } from 'discord.js';
import { DiscordMessageTarget } from '../delivery/discord-message-target.ts';
import type { MessageTarget } from '../delivery/message-target.ts';
import type { PersonaContext } from '../context/persona.ts';

/** Where a turn is delivered, resolved by the edge from the Discord channel. */
export interface TurnPlace {
  target: MessageTarget;
  persona: PersonaContext['place'];
  guildLocale: string | undefined;
}

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
