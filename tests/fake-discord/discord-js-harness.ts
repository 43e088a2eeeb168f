import {
  Client,
  GatewayIntentBits,
  Partials,
  type ClientEvents,
  type ClientOptions,
} from 'discord.js';
import type { FakeDiscord } from './fake-discord.ts';

/** The intents a chat bot asks for; tests that need others pass their own. */
export const CHAT_BOT_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.GuildMessageReactions,
  GatewayIntentBits.DirectMessages,
];

/**
 * A plain discord.js Client pointed at the fake (only `rest.api` changes), logged in and ready.
 */
export async function connectClient(
  discord: FakeDiscord,
  options: Partial<ClientOptions> = {},
): Promise<Client<true>> {
  const client = new Client({
    intents: CHAT_BOT_INTENTS,
    partials: [Partials.Channel],
    ...options,
    rest: { api: discord.apiUrl, ...options.rest },
  });
  const ready = nextEvent(client, 'clientReady');
  await client.login(discord.token);
  await ready;
  return client as Client<true>;
}

/** Resolves with the arguments of the next `event` the client emits that satisfies `accept`. */
export function nextEvent<Event extends keyof ClientEvents>(
  client: Client,
  event: Event,
  accept: (...args: ClientEvents[Event]) => boolean = () => true,
): Promise<ClientEvents[Event]> {
  return new Promise((resolve) => {
    const listener = (...args: ClientEvents[Event]): void => {
      if (!accept(...args)) return;
      client.off(event, listener);
      resolve(args);
    };
    client.on(event, listener);
  });
}
