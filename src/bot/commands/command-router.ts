import {
  MessageFlags,
  type AutocompleteInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type MessageContextMenuCommandInteraction,
  type RepliableInteraction,
} from 'discord.js';
import { WAIT_CANCELLED } from '../../core/clock.ts';
import { resolveLocale } from '../i18n/locale.ts';
import { describeCommandError, refusalText, CommandRefusal } from '../i18n/member-text.ts';
import { namedPermissionOf, requirePermission, scopeOf } from './command-access.ts';
import type { CommandCooldowns } from './command-cooldowns.ts';
import { respond } from './command-replies.ts';
import type { CommandContext, CommandServices, SlashCommand } from './slash-command.ts';

export interface CommandRouterOptions {
  commands: readonly SlashCommand[];
  services: CommandServices;
  cooldowns: CommandCooldowns;
  /**
   * True for exactly one process per interaction (a database claim): two processes on one
   * shard both receive it, and only the first answer is accepted by Discord. Held through a
   * short database outage like a message's claim; throws when the outage lasts.
   */
  claim(interactionId: string): Promise<boolean>;
}

/**
 * How long a command's claim may take before the command is acknowledged anyway (Discord
 * wants an answer within 3 s): during a database outage the process whose acknowledgement
 * Discord accepts owns the command — Discord lets exactly one acknowledge it.
 */
export const CLAIM_BEFORE_DEFER_MS = 2_000;

type ClaimOutcome = { kind: 'claimed'; claimed: boolean } | { kind: 'failed'; error: unknown };

/**
 * Routes slash commands, autocomplete, and the modals and components commands open (custom
 * id `<command>:…`) to their command; checks permissions and cooldowns; turns any failure into
 * a short localized reply with an incident id that is also logged — never a stack trace.
 */
export class CommandRouter {
  readonly #options: CommandRouterOptions;
  readonly #byName: ReadonlyMap<string, SlashCommand>;
  readonly #byMenuName: ReadonlyMap<string, SlashCommand>;

  constructor(options: CommandRouterOptions) {
    this.#options = options;
    this.#byName = new Map(options.commands.map((command) => [command.definition.name, command]));
    this.#byMenuName = new Map(
      options.commands.flatMap((command) =>
        command.messageMenu === undefined ? [] : [[command.messageMenu.definition.name, command]],
      ),
    );
  }

  /** Whether this router answers the interaction (the retry button is the bot's own). */
  owns(interaction: Interaction): boolean {
    if (interaction.isChatInputCommand() || interaction.isAutocomplete()) return true;
    if (interaction.isMessageContextMenuCommand()) return true;
    if (interaction.isModalSubmit() || interaction.isMessageComponent())
      return this.#byName.has(interaction.customId.split(':')[0] ?? '');
    return false;
  }

  async handle(interaction: Interaction): Promise<void> {
    if (interaction.isAutocomplete()) return this.#autocomplete(interaction);
    if (!interaction.isRepliable()) return;
    if (!(await this.#claim(interaction))) return;
    const menu = interaction.isMessageContextMenuCommand();
    const name =
      interaction.isChatInputCommand() || menu
        ? interaction.commandName
        : 'customId' in interaction
          ? (interaction.customId.split(':')[0] ?? '')
          : '';
    const command = menu ? this.#byMenuName.get(name) : this.#byName.get(name);
    const context = this.#context(interaction, name);
    if (command === undefined) {
      await this.#safely(interaction, context, () =>
        respond(interaction, refusalText({ kind: 'unknown_command' }, context.locale)),
      );
      return;
    }
    await this.#safely(interaction, context, async () => {
      if (interaction.isChatInputCommand()) await this.#execute(command, interaction, context);
      else if (interaction.isMessageContextMenuCommand())
        await this.#executeMenu(command, interaction, context);
      else if (interaction.isModalSubmit()) await command.submitModal?.(interaction, context);
      else if (interaction.isMessageComponent())
        await command.handleComponent?.(interaction, context);
    });
  }

  /**
   * Whether this process answers the interaction: its claim, or — when the database is slow to
   * give it — Discord's own verdict on its acknowledgement. A claim the outage outlasted is told.
   */
  async #claim(interaction: RepliableInteraction): Promise<boolean> {
    const claim: Promise<ClaimOutcome> = this.#options.claim(interaction.id).then(
      (claimed) => ({ kind: 'claimed', claimed }),
      (error: unknown) => ({ kind: 'failed', error }),
    );
    const deferrable =
      interaction.isChatInputCommand() || interaction.isMessageContextMenuCommand();
    const first = deferrable ? await this.#within(claim, CLAIM_BEFORE_DEFER_MS) : await claim;
    if (first === undefined) {
      // Slow: the database is away. Acknowledged here means no other process can answer it.
      return interaction.deferReply({ flags: MessageFlags.Ephemeral }).then(
        () => true,
        () => false,
      );
    }
    if (first.kind === 'claimed') return first.claimed;
    const context = this.#context(interaction, interaction.id);
    context.logger.warn({ err: first.error }, 'could not take a command');
    await respond(interaction, refusalText({ kind: 'storage_trouble' }, context.locale)).catch(
      (error: unknown) => context.logger.debug({ err: error }, 'command answered elsewhere'),
    );
    return false;
  }

  /** The claim's outcome, or undefined when it takes longer than `ms`. */
  async #within(claim: Promise<ClaimOutcome>, ms: number): Promise<ClaimOutcome | undefined> {
    const timer = new AbortController();
    try {
      return await Promise.race([
        claim,
        this.#options.services.clock.sleep(ms, timer.signal).then(
          () => undefined,
          () => undefined,
        ),
      ]);
    } finally {
      timer.abort(WAIT_CANCELLED);
    }
  }

  async #execute(
    command: SlashCommand,
    interaction: ChatInputCommandInteraction,
    context: CommandContext,
  ): Promise<void> {
    const required = namedPermissionOf(command.definition.default_member_permissions);
    if (required !== undefined) requirePermission(interaction, context, required);
    const waitMs = this.#options.cooldowns.take(interaction.user.id, command.category);
    if (waitMs > 0) {
      throw new CommandRefusal({ kind: 'cooldown', seconds: Math.ceil(waitMs / 1000) });
    }
    context.logger.info({ options: optionNames(interaction) }, 'slash command');
    await command.execute(interaction, context);
  }

  async #executeMenu(
    command: SlashCommand,
    interaction: MessageContextMenuCommandInteraction,
    context: CommandContext,
  ): Promise<void> {
    const waitMs = this.#options.cooldowns.take(interaction.user.id, command.category);
    if (waitMs > 0) {
      throw new CommandRefusal({ kind: 'cooldown', seconds: Math.ceil(waitMs / 1000) });
    }
    context.logger.info({ options: interaction.commandName }, 'message menu command');
    await command.messageMenu?.execute(interaction, context);
  }

  async #autocomplete(interaction: AutocompleteInteraction): Promise<void> {
    const command = this.#byName.get(interaction.commandName);
    const context = this.#context(interaction, interaction.commandName);
    try {
      if (command?.autocomplete === undefined) await interaction.respond([]);
      else await command.autocomplete(interaction, context);
    } catch (error) {
      // An autocomplete that fails shows "loading options failed" in the client; nothing to add.
      context.logger.warn({ err: error }, 'autocomplete failed');
    }
  }

  async #safely(
    interaction: RepliableInteraction,
    context: CommandContext,
    work: () => Promise<void>,
  ): Promise<void> {
    try {
      await work();
    } catch (error) {
      const { text, incidentId: incident } = describeCommandError(error, context.locale);
      if (incident !== undefined) {
        context.logger.error(
          { err: error, incident, interactionId: interaction.id },
          'slash command failed',
        );
      }
      await respond(interaction, text).catch((replyError: unknown) =>
        context.logger.warn({ err: replyError }, 'could not tell the user a command failed'),
      );
    }
  }

  #context(interaction: Interaction, commandName: string): CommandContext {
    const { services } = this.#options;
    const scope = scopeOf(interaction);
    return {
      services,
      scope,
      locale: resolveLocale(interaction.locale),
      logger: services.logger.child({
        interaction: interaction.id,
        command: commandName,
        scope: scope.id,
        channel: interaction.channelId,
        user: interaction.user.id,
      }),
    };
  }
}

/** Subcommand and option names (never values: an API key may be one) for the log line. */
function optionNames(interaction: ChatInputCommandInteraction): string {
  const group = interaction.options.getSubcommandGroup(false);
  const subcommand = interaction.options.getSubcommand(false);
  return [interaction.commandName, group, subcommand].filter(Boolean).join(' ');
}
