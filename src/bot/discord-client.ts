import { Client, GatewayIntentBits, Partials } from 'discord.js';

export interface DiscordClientOptions {
  /** REST base, e.g. https://discord.com/api (DISCORD_API_URL). */
  apiUrl: string;
}

/**
 * The discord.js client with the intents the bot needs: guild messages and their content
 * (privileged: enable "Message Content Intent" in the developer portal), DMs (which also need
 * the Channel partial, since DM channels are not cached before their first message), reactions
 * and typing for the stop registry.
 */
export function createDiscordClient(options: DiscordClientOptions): Client {
  return new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.GuildMessageReactions,
      GatewayIntentBits.GuildEmojisAndStickers,
      GatewayIntentBits.DirectMessages,
    ],
    partials: [Partials.Channel, Partials.Message],
    rest: { api: options.apiUrl },
    allowedMentions: { parse: [], repliedUser: false },
  });
}
