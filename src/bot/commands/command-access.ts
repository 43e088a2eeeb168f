import { PermissionFlagsBits, type BaseInteraction } from 'discord.js';
import type { Locale } from '../i18n/locale.ts';
import type { CommandContext, CommandScope } from './slash-command.ts';
import { CommandRefusal } from '../i18n/member-text.ts';

/** The permission names as Discord's own client shows them, per language. */
const PERMISSION_NAMES = {
  ManageGuild: { en: 'Manage Server', ja: 'サーバー管理' },
  ManageMessages: { en: 'Manage Messages', ja: 'メッセージの管理' },
  MoveMembers: { en: 'Move Members', ja: 'メンバーを移動' },
} as const satisfies Record<string, Record<Locale, string>>;

type NamedPermission = keyof typeof PERMISSION_NAMES;

/** A guild's scope is the guild; in DMs it is the user, isolated from every guild. */
export function scopeOf(interaction: BaseInteraction): CommandScope {
  return interaction.guildId === null
    ? { id: interaction.user.id, kind: 'dm' }
    : { id: interaction.guildId, kind: 'guild' };
}

/**
 * Whether the invoker holds `permission` where the interaction happens. In DMs every user
 * administers their own scope; the bot's owners hold every permission everywhere. Discord's
 * `default_member_permissions` only hides a command, and a server can override it, so commands
 * check again at run time with the permissions Discord sent in the interaction.
 */
export function holdsPermission(
  interaction: BaseInteraction,
  context: CommandContext,
  permission: NamedPermission,
): boolean {
  if (context.services.ownerIds.includes(interaction.user.id)) return true;
  if (interaction.guildId === null) return true;
  return interaction.memberPermissions?.has(PermissionFlagsBits[permission]) ?? false;
}

/** Throws a localized refusal unless the invoker holds `permission`. */
export function requirePermission(
  interaction: BaseInteraction,
  context: CommandContext,
  permission: NamedPermission,
): void {
  if (holdsPermission(interaction, context, permission)) return;
  throw new CommandRefusal({
    kind: 'missing_permission',
    permission: PERMISSION_NAMES[permission],
  });
}

/** The permission bit a definition's `default_member_permissions` names, by our name. */
export function permissionBit(permission: NamedPermission): string {
  return PermissionFlagsBits[permission].toString();
}

/** Which named permission a registered `default_member_permissions` value stands for. */
export function namedPermissionOf(bits: string | null | undefined): NamedPermission | undefined {
  if (bits === null || bits === undefined) return undefined;
  return (Object.keys(PERMISSION_NAMES) as NamedPermission[]).find(
    (name) => PermissionFlagsBits[name].toString() === bits,
  );
}
