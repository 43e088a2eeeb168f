import { RESTEvents, type Client } from 'discord.js';
import type { BotMetrics, RateLimitScope } from '../../core/metrics.ts';

/**
 * Reports every REST response Discord gives the bot (429s included: discord.js emits the event
 * before it handles them), with the 429's scope: a route bucket, the bot's global limit, or a
 * shared resource limit.
 */
export function reportDiscordResponses(client: Client, metrics: BotMetrics): void {
  client.rest.on(RESTEvents.Response, (request, response) => {
    metrics.discordResponse({
      method: request.method,
      route: request.route,
      status: response.status,
      ...(response.status === 429 ? { rateLimitScope: rateLimitScope(response.headers) } : {}),
    });
  });
}

function rateLimitScope(headers: Headers): RateLimitScope {
  if (headers.get('x-ratelimit-global') === 'true') return 'global';
  const scope = headers.get('x-ratelimit-scope');
  if (scope === 'global' || scope === 'shared') return scope;
  return 'route';
}
