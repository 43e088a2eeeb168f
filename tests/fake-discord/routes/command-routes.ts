import type { RouteDefinition, RouteRequest } from '../http/router.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import type { CommandRegistry } from '../services/command-registry.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import { botGuild, botRoute, json, NO_CONTENT, objectBody } from './route-helpers.ts';

/** Application commands: bulk overwrite, list, and single create/get/edit/delete, global and per guild. */
export function commandRoutes(
  context: FakeDiscordContext,
  registry: CommandRegistry,
): RouteDefinition[] {
  const scopeOf = (request: RouteRequest): string | null => {
    if (request.params.applicationId !== context.world.bot.applicationId) {
      throw DiscordApiError.missingAccess();
    }
    const guildId = request.params.guildId;
    if (guildId === undefined) return null;
    botGuild(context, guildId);
    return guildId;
  };
  const routes: RouteDefinition[] = [];
  for (const base of [
    '/applications/:applicationId/commands',
    '/applications/:applicationId/guilds/:guildId/commands',
  ]) {
    routes.push(
      botRoute('GET', base, (request) => json(registry.list(scopeOf(request)))),
      botRoute('PUT', base, (request) =>
        json(registry.bulkOverwrite(scopeOf(request), request.body ?? [])),
      ),
      botRoute('POST', base, (request) => {
        const { command, created } = registry.create(scopeOf(request), objectBody(request));
        return json(command, created ? 201 : 200);
      }),
      botRoute('GET', `${base}/:commandId`, (request) =>
        json(registry.get(scopeOf(request), request.params.commandId ?? '')),
      ),
      botRoute('PATCH', `${base}/:commandId`, (request) =>
        json(registry.edit(scopeOf(request), request.params.commandId ?? '', objectBody(request))),
      ),
      botRoute('DELETE', `${base}/:commandId`, (request) => {
        registry.delete(scopeOf(request), request.params.commandId ?? '');
        return NO_CONTENT;
      }),
    );
  }
  return routes;
}
