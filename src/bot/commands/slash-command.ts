import type { SpeechService } from '../../core/speech.ts';
import type {
  AutocompleteInteraction,
  ChatInputCommandInteraction,
  MessageComponentInteraction,
  MessageContextMenuCommandInteraction,
  ModalSubmitInteraction,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
  RESTPostAPIContextMenuApplicationCommandsJSONBody,
} from 'discord.js';
import type { Character } from '../../core/character.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { ScopeKind } from '../../core/settings.ts';
import type { Database } from '../../db/database.ts';
import type { ProviderFactory } from '../../providers/provider-factory.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { ToolCatalog } from '../../tools/tool-catalog.ts';
import type { SceneCache } from '../cast/scene-cache.ts';
import type { Locale } from '../i18n/locale.ts';
import type { ChannelSettingsCache, ScopeSettingsCache } from '../settings/settings-cache.ts';
import type { CrossProcessStops } from '../stops/cross-process-stops.ts';
import type { VoiceChannels } from '../voice/voice-channels.ts';

/** Cooldowns are kept per user and category, so a burst of /config edits does not block /help. */
export type CommandCategory = 'config' | 'conversation' | 'info' | 'diagnostics';

/** The services every command may use; built once by the bot. */
export interface CommandServices {
  db: Database;
  settings: ScopeSettingsCache;
  /** Per-channel persona and humanizer overrides (written through by `/config … scope:channel`). */
  channelSettings: ChannelSettingsCache;
  /** Who is on stage per channel (written through by `/scene`, dropped by `/character` edits). */
  scenes: SceneCache;
  /** A character was edited or removed: every cached scene here and elsewhere is stale. */
  charactersChanged(): void;
  /**
   * A character that came on stage in a channel says its greeting there: `none` when it has
   * none, `failed` when Discord refused it (turns/scene-greeting.ts).
   */
  greet?(request: {
    channelId: string;
    scopeId: string;
    character: Character;
  }): Promise<'posted' | 'none' | 'failed'>;
  secretBox: SecretBox;
  providers: ProviderFactory;
  tools: ToolCatalog;
  /** Stops the live turn of a channel, in this process or the one streaming it. */
  stops: CrossProcessStops;
  clock: Clock;
  logger: Logger;
  /** BOT_OWNER_IDS: may do what a server's Manage Server members may, everywhere. */
  ownerIds: readonly string[];
  /** This process's id in logs and the liveness table (`/doctor` names who answered). */
  instanceId?: string;
  /** The operator's speech service (SPEECH_*), when there is one. */
  speech?: SpeechService | undefined;
  /** The bot's voice calls, when voice channels are on (VOICE_CHANNELS). */
  voice?: VoiceChannels | undefined;
}

/** The settings scope of an interaction: the guild, or in DMs the user (isolated from guilds). */
export interface CommandScope {
  id: string;
  kind: ScopeKind;
}

/** Per interaction: the services, where it happens and whom to answer in which language. */
export interface CommandContext {
  services: CommandServices;
  scope: CommandScope;
  locale: Locale;
  /** A child logger bound to the interaction, command and scope. */
  logger: Logger;
}

/**
 * One slash command. `definition` is what gets registered (built with discord.js builders,
 * localized en-US and ja). Modals and components the command opens use custom ids starting
 * with `<name>:`, and come back to `submitModal` / `handleComponent`.
 */
export interface SlashCommand {
  readonly definition: RESTPostAPIChatInputApplicationCommandsJSONBody;
  readonly category: CommandCategory;
  execute(interaction: ChatInputCommandInteraction, context: CommandContext): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, context: CommandContext): Promise<void>;
  submitModal?(interaction: ModalSubmitInteraction, context: CommandContext): Promise<void>;
  handleComponent?(
    interaction: MessageComponentInteraction,
    context: CommandContext,
  ): Promise<void>;
  /** A message context-menu command that belongs with this one (e.g. "Pin for Tomodachi"). */
  readonly messageMenu?: MessageMenuCommand;
}

/** A command in a message's "Apps" menu, registered next to the slash commands. */
export interface MessageMenuCommand {
  readonly definition: RESTPostAPIContextMenuApplicationCommandsJSONBody;
  execute(
    interaction: MessageContextMenuCommandInteraction,
    context: CommandContext,
  ): Promise<void>;
}

/** Every definition to register: the slash commands and their message-menu companions. */
export function registeredDefinitions(
  commands: readonly SlashCommand[],
): Array<
  | RESTPostAPIChatInputApplicationCommandsJSONBody
  | RESTPostAPIContextMenuApplicationCommandsJSONBody
> {
  return commands.flatMap((command) =>
    command.messageMenu === undefined
      ? [command.definition]
      : [command.definition, command.messageMenu.definition],
  );
}

/** The custom id prefix of a command's modals and components. */
export function customIdPrefix(commandName: string): string {
  return `${commandName}:`;
}
