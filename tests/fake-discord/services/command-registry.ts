import { ApplicationCommandType, type APIApplicationCommand } from 'discord-api-types/v10';
import { validateCommands } from '../rules/command-validation.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';

const GLOBAL = 'global';

/**
 * Application commands, global and per guild. A bulk overwrite keeps the id of a command whose
 * name and type are unchanged (as Discord does) and bumps `version` when its definition changed.
 */
export class CommandRegistry {
  readonly #context: FakeDiscordContext;
  readonly #scopes = new Map<string, APIApplicationCommand[]>();

  constructor(context: FakeDiscordContext) {
    this.#context = context;
  }

  list(guildId: string | null): APIApplicationCommand[] {
    return [...(this.#scopes.get(guildId ?? GLOBAL) ?? [])];
  }

  bulkOverwrite(guildId: string | null, definitions: unknown): APIApplicationCommand[] {
    if (!Array.isArray(definitions)) {
      throw DiscordApiError.invalidFormBody([
        {
          path: ['_root'],
          error: { code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' },
        },
      ]);
    }
    const problems = validateCommands(definitions);
    if (problems.length > 0) throw DiscordApiError.invalidFormBody(problems);
    const previous = this.list(guildId);
    const commands = (definitions as Record<string, unknown>[]).map((definition) => {
      const type =
        (definition.type as ApplicationCommandType | undefined) ?? ApplicationCommandType.ChatInput;
      const before = previous.find(
        (command) => command.name === definition.name && command.type === type,
      );
      return this.#build(guildId, definition, before);
    });
    this.#scopes.set(guildId ?? GLOBAL, commands);
    this.#context.hub.emit({ type: 'commands-update', guildId });
    return commands;
  }

  create(
    guildId: string | null,
    definition: unknown,
  ): { command: APIApplicationCommand; created: boolean } {
    const problems = validateCommands([definition]);
    if (problems.length > 0)
      throw DiscordApiError.invalidFormBody(
        problems.map((problem) => ({ ...problem, path: problem.path.slice(1) })),
      );
    const raw = definition as Record<string, unknown>;
    const type =
      (raw.type as ApplicationCommandType | undefined) ?? ApplicationCommandType.ChatInput;
    const commands = this.list(guildId);
    const index = commands.findIndex(
      (command) => command.name === raw.name && command.type === type,
    );
    const command = this.#build(guildId, raw, commands[index]);
    if (index === -1) commands.push(command);
    else commands[index] = command;
    this.#scopes.set(guildId ?? GLOBAL, commands);
    this.#context.hub.emit({ type: 'commands-update', guildId });
    return { command, created: index === -1 };
  }

  get(guildId: string | null, commandId: string): APIApplicationCommand {
    const command = this.list(guildId).find((candidate) => candidate.id === commandId);
    if (command === undefined) {
      throw new DiscordApiError({
        status: 404,
        code: 10063,
        message: 'Unknown application command',
      });
    }
    return command;
  }

  edit(
    guildId: string | null,
    commandId: string,
    changes: Record<string, unknown>,
  ): APIApplicationCommand {
    const current = this.get(guildId, commandId);
    const merged = { ...current, ...changes };
    const problems = validateCommands([merged]);
    if (problems.length > 0)
      throw DiscordApiError.invalidFormBody(
        problems.map((problem) => ({ ...problem, path: problem.path.slice(1) })),
      );
    const command = this.#build(guildId, merged, current);
    this.#scopes.set(
      guildId ?? GLOBAL,
      this.list(guildId).map((candidate) => (candidate.id === commandId ? command : candidate)),
    );
    this.#context.hub.emit({ type: 'commands-update', guildId });
    return command;
  }

  delete(guildId: string | null, commandId: string): void {
    this.get(guildId, commandId);
    this.#scopes.set(
      guildId ?? GLOBAL,
      this.list(guildId).filter((command) => command.id !== commandId),
    );
    this.#context.hub.emit({ type: 'commands-update', guildId });
  }

  /** The command a user would see in `guildId` (guild commands shadow global ones), or in DMs. */
  find(
    name: string,
    guildId: string | null,
    type: ApplicationCommandType = ApplicationCommandType.ChatInput,
  ): APIApplicationCommand | undefined {
    const isChatInput = (command: APIApplicationCommand) =>
      command.name === name && command.type === type;
    const inGuild = guildId === null ? undefined : this.list(guildId).find(isChatInput);
    return inGuild ?? this.list(null).find(isChatInput);
  }

  #build(
    guildId: string | null,
    definition: Record<string, unknown>,
    previous: APIApplicationCommand | undefined,
  ): APIApplicationCommand {
    const { world } = this.#context;
    const type =
      (definition.type as ApplicationCommandType | undefined) ?? ApplicationCommandType.ChatInput;
    const permissions = definition.default_member_permissions;
    const body = {
      type,
      name: definition.name as string,
      name_localizations: definition.name_localizations ?? null,
      description:
        type === ApplicationCommandType.ChatInput ? (definition.description as string) : '',
      description_localizations: definition.description_localizations ?? null,
      options: (definition.options ?? []) as Field<'options'>,
      default_member_permissions:
        typeof permissions === 'string' || typeof permissions === 'number'
          ? String(permissions)
          : null,
      nsfw: definition.nsfw === true,
      contexts: (definition.contexts ?? null) as Field<'contexts'>,
      integration_types: (definition.integration_types ?? [0]) as Field<'integration_types'>,
      ...(definition.dm_permission === undefined
        ? {}
        : { dm_permission: definition.dm_permission === true }),
    };
    const unchanged = previous !== undefined && sameDefinition(previous, body);
    return {
      ...body,
      id: previous?.id ?? world.ids.next(),
      application_id: world.bot.applicationId,
      version: unchanged ? previous.version : world.ids.next(),
      ...(guildId === null ? {} : { guild_id: guildId }),
    };
  }
}

/** A field of a command as Discord sends it: present, if only as null. */
type Field<Key extends keyof APIApplicationCommand> = Exclude<
  APIApplicationCommand[Key],
  undefined
>;

function sameDefinition(previous: APIApplicationCommand, next: object): boolean {
  const {
    id: _id,
    application_id: _application,
    version: _version,
    guild_id: _guild,
    ...rest
  } = previous;
  return JSON.stringify(rest) === JSON.stringify({ ...rest, ...next });
}
