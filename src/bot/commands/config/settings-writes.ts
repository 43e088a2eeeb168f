import type { RepliableInteraction } from 'discord.js';
import type { ScopeSettings } from '../../../core/settings.ts';
import {
  loadScopeSettings,
  updateScopeSettings,
  updateScopeSettingsIfUnchanged,
  type SettingsPatch,
} from '../../../db/scope-settings-repository.ts';
import { deferIfSlow } from '../command-replies.ts';
import type { CommandContext } from '../slash-command.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

/**
 * Saves a change to the invoker's scope (deferring first: the database may be slower than
 * Discord's 3 s) and writes it through to this process's settings cache, so the next message
 * here sees it; other processes pick it up with their cache refresh. A change computed from
 * the current value (a list edit) passes `basedOn`: if someone changed the scope since, the
 * invoker is asked to try again instead of silently overwriting their change.
 */
export async function saveSettings(
  interaction: RepliableInteraction,
  context: CommandContext,
  patch: SettingsPatch,
  basedOn?: ScopeSettings,
): Promise<ScopeSettings> {
  await deferIfSlow(interaction);
  const { db } = context.services;
  const updated =
    basedOn === undefined
      ? await updateScopeSettings(db, context.scope, patch)
      : await updateScopeSettingsIfUnchanged(db, context.scope, basedOn, patch);
  if (updated === undefined) {
    context.services.settings.invalidate(context.scope.id);
    throw new CommandRefusal({ kind: 'settings_conflict' });
  }
  context.services.settings.written(updated);
  // Field names only: a persona or a trigger word is the members' text, not the log's.
  context.logger.info({ fields: Object.keys(patch) }, 'settings changed');
  return updated;
}

/**
 * The scope's settings as the database holds them now (deferring first), for a change that
 * builds on the current value: the cache may be a refresh behind another process's write.
 */
export async function currentSettings(
  interaction: RepliableInteraction,
  context: CommandContext,
): Promise<ScopeSettings> {
  await deferIfSlow(interaction);
  const settings = await loadScopeSettings(context.services.db, context.scope.id);
  context.services.settings.store(settings);
  return settings;
}
