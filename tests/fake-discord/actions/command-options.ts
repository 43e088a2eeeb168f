import {
  ApplicationCommandOptionType,
  type APIApplicationCommand,
  type APIApplicationCommandOption,
} from 'discord-api-types/v10';
import { channelPayload } from '../payloads/channel-payloads.ts';
import { attachmentUrl, type PayloadContext } from '../payloads/message-payloads.ts';
import { memberWithoutUser, rolePayload, userPayload } from '../payloads/user-payloads.ts';
import type { AttachmentRecord } from '../state/records.ts';
import { FakeDiscordUsageError } from './usage-error.ts';

/** A file a user attaches to an ATTACHMENT option. */
export interface AttachmentInput {
  filename: string;
  contentType?: string;
  data: Buffer | string;
  /** A voice message's metadata, as the client sends it. */
  durationSecs?: number;
  waveform?: string;
}

/** What a user typed: option values by name (user/channel/role/mentionable take ids). */
export type CommandOptionValues = Record<string, string | number | boolean | AttachmentInput>;

export interface CommandInvocation {
  subcommandGroup?: string;
  subcommand?: string;
  options?: CommandOptionValues;
  /** Autocomplete: the option being typed (sent as a string with `focused: true`). */
  focused?: string;
}

interface BuiltOption {
  name: string;
  type: ApplicationCommandOptionType;
  value?: string | number | boolean;
  focused?: boolean;
  options?: BuiltOption[];
}

export interface BuiltCommandData {
  options: BuiltOption[];
  resolved: Record<string, Record<string, unknown>>;
}

/**
 * Turns what a user typed into `data.options` + `data.resolved`, checked against the
 * registered definition the way the Discord client enforces it: known names, required options,
 * choices, integer values, and resolved users/members/roles/channels/attachments.
 */
export function buildCommandData(options: {
  command: APIApplicationCommand;
  invocation: CommandInvocation;
  context: PayloadContext;
  guildId: string | null;
  channelId: string;
  permissionsOf: (userId: string) => bigint;
}): BuiltCommandData {
  const { command, invocation } = options;
  const resolved: BuiltCommandData['resolved'] = {};
  let definitions = command.options ?? [];
  const path: ((leaf: BuiltOption[]) => BuiltOption[])[] = [];
  for (const [kind, name] of [
    [ApplicationCommandOptionType.SubcommandGroup, invocation.subcommandGroup],
    [ApplicationCommandOptionType.Subcommand, invocation.subcommand],
  ] as const) {
    if (name === undefined) continue;
    const found = definitions.find((option) => option.name === name && option.type === kind);
    if (found === undefined || !('options' in found)) {
      throw new FakeDiscordUsageError(
        `/${command.name} has no ${ApplicationCommandOptionType[kind]} "${name}"`,
      );
    }
    definitions = found.options ?? [];
    path.push((leaf) => [{ name, type: kind, options: leaf }]);
  }
  const values = invocation.options ?? {};
  const leaf: BuiltOption[] = [];
  for (const [name, value] of Object.entries(values)) {
    const definition = definitions.find((option) => option.name === name);
    if (definition === undefined)
      throw new FakeDiscordUsageError(`/${command.name} has no option "${name}"`);
    if (invocation.focused === name) {
      leaf.push({ name, type: definition.type, value: String(scalar(name, value)), focused: true });
      continue;
    }
    leaf.push({
      name,
      type: definition.type,
      value: resolveValue({ ...options, definition, value, resolved }),
    });
  }
  for (const definition of definitions) {
    const required = 'required' in definition && definition.required === true;
    if (required && !(definition.name in values) && invocation.focused === undefined) {
      throw new FakeDiscordUsageError(`/${command.name} needs option "${definition.name}"`);
    }
  }
  const nested = path.reduceRight<BuiltOption[]>((inner, wrap) => wrap(inner), leaf);
  return { options: nested, resolved };
}

/** A typed value (a file only fits an ATTACHMENT option). */
function scalar(name: string, value: CommandOptionValues[string]): string | number | boolean {
  if (typeof value === 'object')
    throw new FakeDiscordUsageError(`option "${name}" takes a value, not a file`);
  return value;
}

function resolveValue(options: {
  definition: APIApplicationCommandOption;
  value: string | number | boolean | AttachmentInput;
  resolved: BuiltCommandData['resolved'];
  context: PayloadContext;
  guildId: string | null;
  channelId: string;
  permissionsOf: (userId: string) => bigint;
}): string | number | boolean {
  const { definition, value, resolved, context } = options;
  const { world } = context;
  const add = (kind: string, id: string, payload: unknown): string => {
    (resolved[kind] ??= {})[id] = payload;
    return id;
  };
  const choices = 'choices' in definition ? definition.choices : undefined;
  if (
    choices !== undefined &&
    choices.length > 0 &&
    !choices.some((choice) => choice.value === value)
  ) {
    throw new FakeDiscordUsageError(
      `option "${definition.name}" only offers ${choices.map((choice) => String(choice.value)).join(', ')}`,
    );
  }
  if (definition.type === ApplicationCommandOptionType.Attachment) {
    const input = value as AttachmentInput;
    const attachment: AttachmentRecord = {
      id: world.ids.next(),
      filename: input.filename,
      description: null,
      contentType: input.contentType ?? null,
      data: Buffer.isBuffer(input.data) ? input.data : Buffer.from(input.data),
      durationSecs: null,
      waveform: null,
    };
    world.uploads.set(attachment.id, { channelId: options.channelId, attachment });
    const url = attachmentUrl(context, { channelId: options.channelId, attachment });
    return add('attachments', attachment.id, {
      id: attachment.id,
      filename: attachment.filename,
      size: attachment.data.length,
      url,
      proxy_url: url,
      ephemeral: true,
      ...(attachment.contentType === null ? {} : { content_type: attachment.contentType }),
    });
  }
  const plain = scalar(definition.name, value);
  switch (definition.type) {
    case ApplicationCommandOptionType.Integer:
      if (typeof plain !== 'number' || !Number.isInteger(plain)) {
        throw new FakeDiscordUsageError(`option "${definition.name}" takes an integer`);
      }
      return plain;
    case ApplicationCommandOptionType.User:
    case ApplicationCommandOptionType.Mentionable: {
      const id = String(plain);
      const role =
        options.guildId === null ? undefined : world.guilds.get(options.guildId)?.roles.get(id);
      if (role !== undefined && definition.type === ApplicationCommandOptionType.Mentionable) {
        return add('roles', id, rolePayload(role));
      }
      add('users', id, userPayload(world.user(id)));
      const member = options.guildId === null ? undefined : world.member(options.guildId, id);
      if (member !== undefined) {
        add('members', id, {
          ...memberWithoutUser(member),
          permissions: options.permissionsOf(id).toString(),
        });
      }
      return id;
    }
    case ApplicationCommandOptionType.Role: {
      const role =
        options.guildId === null
          ? undefined
          : world.guilds.get(options.guildId)?.roles.get(String(plain));
      if (role === undefined) throw new FakeDiscordUsageError(`no role ${String(plain)} here`);
      return add('roles', role.id, rolePayload(role));
    }
    case ApplicationCommandOptionType.Channel: {
      const channel = world.channel(String(plain));
      return add('channels', channel.id, {
        ...channelPayload(world, channel),
        permissions: options.permissionsOf(world.bot.userId).toString(),
      });
    }
    case ApplicationCommandOptionType.String:
    case ApplicationCommandOptionType.Number:
    case ApplicationCommandOptionType.Boolean:
    case ApplicationCommandOptionType.Subcommand:
    case ApplicationCommandOptionType.SubcommandGroup:
      return plain;
  }
}
