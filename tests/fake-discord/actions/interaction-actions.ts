import {
  ApplicationCommandType,
  ComponentType,
  InteractionType,
  PermissionFlagsBits,
  type APIApplicationCommand,
  type APIMessageTopLevelComponent,
} from 'discord-api-types/v10';
import { messagePayload } from '../payloads/message-payloads.ts';
import { hasPermission } from '../rules/permissions.ts';
import type { CommandRegistry } from '../services/command-registry.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import type { InteractionService } from '../services/interaction-service.ts';
import { buildCommandData, type CommandInvocation } from './command-options.ts';
import { interactionEnvelope } from './interaction-envelope.ts';
import { InteractionHandle, type ModalValues } from './interaction-handle.ts';
import { FakeDiscordUsageError } from './usage-error.ts';

export interface SlashCommandInput extends CommandInvocation {
  userId: string;
  channelId: string;
  /** The command's name as registered. */
  command: string;
  /** The invoking user's client language. Default en-US. */
  locale?: string;
  /**
   * Invoke even though `default_member_permissions` hides the command from this member — what a
   * server admin's override in Integrations settings allows. Use it to test runtime checks.
   */
  bypassDefaultMemberPermissions?: boolean;
  /**
   * Delivers INTERACTION_CREATE to this gateway session only (see `gateway.sessions()`), as
   * Discord delivers an interaction once: tests choose which of several bot processes hears it.
   */
  sessionId?: string;
}

/** A message context-menu command ("Apps" → command) on a message. */
export interface MessageCommandInput {
  userId: string;
  messageId: string;
  /** The command's name as registered (en-US). */
  command: string;
  locale?: string;
  bypassDefaultMemberPermissions?: boolean;
}

export interface ComponentInput {
  userId: string;
  messageId: string;
  customId: string;
  locale?: string;
  /** Delivers the press to this gateway session only (see SlashCommandInput.sessionId). */
  sessionId?: string;
}

/**
 * Users' interactions: slash commands and autocomplete against the registered definitions,
 * button presses and select menus on real messages, and modal submits — each dispatched as
 * INTERACTION_CREATE and returned as a handle to await the bot's answer.
 */
export class InteractionActions {
  readonly #context: FakeDiscordContext;
  readonly #interactions: InteractionService;
  readonly #commands: CommandRegistry;

  constructor(
    context: FakeDiscordContext,
    services: { interactions: InteractionService; commands: CommandRegistry },
  ) {
    this.#context = context;
    this.#interactions = services.interactions;
    this.#commands = services.commands;
  }

  invokeSlashCommand(input: SlashCommandInput): InteractionHandle {
    return this.#command(input, InteractionType.ApplicationCommand);
  }

  /** The user is typing into option `focused`; the bot must answer with choices. */
  autocomplete(input: SlashCommandInput & { focused: string }): InteractionHandle {
    return this.#command(input, InteractionType.ApplicationCommandAutocomplete);
  }

  pressButton(input: ComponentInput): InteractionHandle {
    return this.#component(input, (component) => {
      if (component.type !== ComponentType.Button)
        throw new FakeDiscordUsageError(`"${input.customId}" is not a button`);
      return { custom_id: input.customId, component_type: ComponentType.Button };
    });
  }

  chooseFromSelect(input: ComponentInput & { values: string[] }): InteractionHandle {
    return this.#component(input, (component) => {
      if (component.type !== ComponentType.StringSelect) {
        throw new FakeDiscordUsageError(`"${input.customId}" is not a string select menu`);
      }
      return {
        custom_id: input.customId,
        component_type: ComponentType.StringSelect,
        values: input.values,
      };
    });
  }

  #command(input: SlashCommandInput, type: InteractionType): InteractionHandle {
    const { world } = this.#context;
    const channel = world.channel(input.channelId);
    const command = this.#commands.find(input.command, channel.guildId);
    if (command === undefined)
      throw new FakeDiscordUsageError(
        `/${input.command} is not registered where ${input.channelId} is`,
      );
    this.#checkAccess(command, channel, input);
    const built = buildCommandData({
      command,
      invocation: input,
      context: this.#context.payloads,
      guildId: channel.guildId,
      channelId: channel.id,
      permissionsOf: (userId) => world.permissionsIn(channel, userId),
    });
    const data = {
      id: command.id,
      name: command.name,
      type: ApplicationCommandType.ChatInput,
      ...(command.guild_id === undefined ? {} : { guild_id: command.guild_id }),
      ...(built.options.length > 0 ? { options: built.options } : {}),
      ...(Object.keys(built.resolved).length > 0 ? { resolved: built.resolved } : {}),
    };
    return this.#open({
      type,
      userId: input.userId,
      channelId: channel.id,
      ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
      commandName: command.name,
      sourceMessageId: null,
      locale: input.locale,
      data,
    });
  }

  /** A message context-menu command on a message, as the "Apps" menu invokes it. */
  invokeMessageCommand(input: MessageCommandInput): InteractionHandle {
    const { world } = this.#context;
    const message = world.messages.get(input.messageId);
    if (message === undefined || message.deletedAt !== null)
      throw new FakeDiscordUsageError(`message ${input.messageId} is gone`);
    const channel = world.channel(message.channelId);
    const command = this.#commands.find(
      input.command,
      channel.guildId,
      ApplicationCommandType.Message,
    );
    if (command === undefined)
      throw new FakeDiscordUsageError(
        `message command "${input.command}" is not registered where ${channel.id} is`,
      );
    this.#checkAccess(command, channel, input);
    const data = {
      id: command.id,
      name: command.name,
      type: ApplicationCommandType.Message,
      target_id: message.id,
      ...(command.guild_id === undefined ? {} : { guild_id: command.guild_id }),
      resolved: {
        messages: {
          [message.id]: messagePayload(this.#context.payloads, message, { forGateway: false }),
        },
      },
    };
    return this.#open({
      type: InteractionType.ApplicationCommand,
      userId: input.userId,
      channelId: channel.id,
      commandName: command.name,
      sourceMessageId: null,
      locale: input.locale,
      data,
    });
  }

  /** Whether Discord's client would offer the command to this user here. */
  #checkAccess(
    command: APIApplicationCommand,
    channel: ReturnType<FakeDiscordContext['world']['channel']>,
    input: { userId: string; bypassDefaultMemberPermissions?: boolean },
  ): void {
    const { world } = this.#context;
    const permissions = world.permissionsIn(channel, input.userId);
    if (channel.guildId !== null) {
      if (
        !hasPermission(
          permissions,
          PermissionFlagsBits.ViewChannel | PermissionFlagsBits.UseApplicationCommands,
        )
      ) {
        throw new FakeDiscordUsageError(
          `user ${input.userId} cannot use commands in ${channel.id}`,
        );
      }
      const required = command.default_member_permissions;
      if (
        required !== null &&
        input.bypassDefaultMemberPermissions !== true &&
        !hasPermission(permissions, BigInt(required))
      ) {
        throw new FakeDiscordUsageError(
          `Discord hides /${command.name} from members without permissions ${required}`,
        );
      }
    } else if (command.contexts?.includes(1) === false || command.dm_permission === false) {
      throw new FakeDiscordUsageError(`/${command.name} is not available in DMs`);
    }
  }

  #component(
    input: ComponentInput,
    data: (component: { type: ComponentType; disabled?: boolean }) => Record<string, unknown>,
  ): InteractionHandle {
    const { world } = this.#context;
    const message = world.messages.get(input.messageId);
    if (message === undefined || message.deletedAt !== null)
      throw new FakeDiscordUsageError(`message ${input.messageId} is gone`);
    if (message.visibleTo !== null && message.visibleTo !== input.userId) {
      throw new FakeDiscordUsageError(
        `user ${input.userId} cannot see ephemeral message ${message.id}`,
      );
    }
    const component = findComponent(message.components, input.customId);
    if (component === undefined)
      throw new FakeDiscordUsageError(`message ${message.id} has no component "${input.customId}"`);
    if (component.disabled === true)
      throw new FakeDiscordUsageError(`"${input.customId}" is disabled`);
    return this.#open({
      type: InteractionType.MessageComponent,
      userId: input.userId,
      channelId: message.channelId,
      ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
      commandName: null,
      sourceMessageId: message.id,
      locale: input.locale,
      data: data(component),
      message: messagePayload(this.#context.payloads, message, { forGateway: false }),
    });
  }

  #submitModal(origin: InteractionHandle, values: ModalValues): InteractionHandle {
    const modal = origin.modal();
    if (modal === undefined)
      throw new FakeDiscordUsageError(`interaction ${origin.id} did not open a modal`);
    const record = origin.record;
    const source =
      record.sourceMessageId === null
        ? undefined
        : this.#context.world.messages.get(record.sourceMessageId);
    return this.#open({
      type: InteractionType.ModalSubmit,
      userId: record.userId,
      channelId: record.channelId,
      commandName: null,
      sourceMessageId: record.sourceMessageId,
      locale: (record.payload as { locale?: string }).locale,
      data: {
        custom_id: modal.custom_id,
        components: submittedComponents(modal.components, values),
      },
      ...(source === undefined
        ? {}
        : { message: messagePayload(this.#context.payloads, source, { forGateway: false }) }),
    });
  }

  #open(input: {
    type: InteractionType;
    userId: string;
    channelId: string;
    sessionId?: string;
    commandName: string | null;
    sourceMessageId: string | null;
    locale: string | undefined;
    data: unknown;
    message?: ReturnType<typeof messagePayload>;
  }): InteractionHandle {
    const record = this.#interactions.open({
      type: input.type,
      userId: input.userId,
      channelId: input.channelId,
      ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
      commandName: input.commandName,
      sourceMessageId: input.sourceMessageId,
      build: ({ id, token }) =>
        interactionEnvelope(this.#context, {
          id,
          token,
          type: input.type,
          userId: input.userId,
          channelId: input.channelId,
          locale: input.locale ?? 'en-US',
          data: input.data,
          ...(input.message === undefined ? {} : { message: input.message }),
        }),
    });
    return new InteractionHandle({
      record,
      hub: this.#context.hub,
      payloads: this.#context.payloads,
      submitModal: (handle, values) => this.#submitModal(handle, values),
    });
  }
}

type AnyComponent = {
  type: ComponentType;
  custom_id?: string;
  disabled?: boolean;
  components?: AnyComponent[];
  component?: AnyComponent;
  accessory?: AnyComponent;
};

function findComponent(
  components: readonly APIMessageTopLevelComponent[],
  customId: string,
): AnyComponent | undefined {
  const stack = [...(components as AnyComponent[])];
  while (stack.length > 0) {
    const component = stack.pop();
    if (component === undefined) continue;
    if (component.custom_id === customId) return component;
    stack.push(...(component.components ?? []));
    if (component.component !== undefined) stack.push(component.component);
    if (component.accessory !== undefined) stack.push(component.accessory);
  }
  return undefined;
}

/** Mirrors the modal's layout (action rows or labels) with the values the user typed. */
function submittedComponents(layout: readonly unknown[], values: ModalValues): unknown[] {
  const input = (component: {
    type: ComponentType;
    custom_id?: string;
    required?: boolean;
    max_length?: number;
  }) => {
    const value = values[component.custom_id ?? ''] ?? '';
    if (
      component.required !== false &&
      value === '' &&
      component.type === ComponentType.TextInput
    ) {
      throw new FakeDiscordUsageError(`text input "${component.custom_id ?? ''}" is required`);
    }
    if (component.max_length !== undefined && value.length > component.max_length) {
      throw new FakeDiscordUsageError(
        `text input "${component.custom_id ?? ''}" takes at most ${component.max_length} characters`,
      );
    }
    return { type: component.type, custom_id: component.custom_id, value };
  };
  return (layout as AnyComponent[]).flatMap((row): unknown[] => {
    if (row.type === ComponentType.ActionRow) {
      return [{ type: ComponentType.ActionRow, components: (row.components ?? []).map(input) }];
    }
    if (row.type === ComponentType.Label && row.component !== undefined) {
      return [{ type: ComponentType.Label, component: input(row.component) }];
    }
    return [];
  });
}
