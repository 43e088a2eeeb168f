/**
 * A second process on the bot's token, for tests/bot/shared-rest-budget.test.ts: the bot's own
 * discord.js REST stack (createDiscordClient: its pacer, its proxy routing) posting messages,
 * in a process of its own as another shard process would be. Forked with an IPC channel; it
 * takes one `RestLoad` message, answers with the number of posts that failed, and exits.
 */
import { Routes } from 'discord.js';
import { createDiscordClient } from '../../../src/bot/client/discord-client.ts';
import { GlobalRequestPacer } from '../../../src/bot/rest/global-request-pacer.ts';
import { systemClock } from '../../../src/core/clock.ts';

export interface RestLoad {
  apiUrl: string;
  token: string;
  /** DISCORD_REST_PROXY of this process, if any. */
  restProxyUrl?: string;
  /** Its pacer's requests per second; undefined behind the proxy. */
  requestsPerSecond?: number;
  channelIds: string[];
  messagesPerChannel: number;
}

export interface RestLoadResult {
  failures: number;
}

async function run(load: RestLoad): Promise<RestLoadResult> {
  const client = createDiscordClient({
    apiUrl: load.apiUrl,
    restProxyUrl: load.restProxyUrl,
    pacer:
      load.requestsPerSecond === undefined
        ? undefined
        : new GlobalRequestPacer({ clock: systemClock, limit: load.requestsPerSecond }),
  });
  client.rest.setToken(load.token);
  try {
    const posts = load.channelIds.flatMap((channelId) =>
      Array.from({ length: load.messagesPerChannel }, (_unused, index) =>
        client.rest
          .post(Routes.channelMessages(channelId), {
            body: { content: `post ${index + 1}`, allowed_mentions: { parse: [] } },
          })
          .then(
            () => true,
            () => false,
          ),
      ),
    );
    const outcomes = await Promise.all(posts);
    return { failures: outcomes.filter((ok) => !ok).length };
  } finally {
    await client.destroy();
  }
}

process.once('message', (load: RestLoad) => {
  void run(load).then(
    (result) => process.send?.(result, () => process.exit(0)),
    () => process.exit(1),
  );
});
// The test went away: so does this process.
process.on('disconnect', () => process.exit(0));
