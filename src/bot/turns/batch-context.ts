import type { ToolAuthor, ToolContext } from '../../core/tool.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import type { Locale } from '../i18n/locale.ts';
import type { Trigger } from '../intake/trigger.ts';

/** The distinct authors of a batch, in order of their first message. */
export function batchAuthors(batch: readonly Trigger[]): ToolAuthor[] {
  const authors = new Map<string, ToolAuthor>();
  for (const { message } of batch) {
    if (!authors.has(message.authorId)) {
      authors.set(message.authorId, { id: message.authorId, name: message.authorName });
    }
  }
  return [...authors.values()];
}

/** Least privilege: the permission bits EVERY author of the batch holds (undefined in DMs). */
export function sharedPermissions(batch: readonly Trigger[]): string | undefined {
  let shared: bigint | undefined;
  for (const trigger of batch) {
    if (trigger.memberPermissions === undefined) return undefined;
    const bits = BigInt(trigger.memberPermissions);
    shared = shared === undefined ? bits : shared & bits;
  }
  return shared?.toString();
}

/**
 * What the tools of a turn for this batch act with: the last message's place and author, every
 * author of the batch, and only the permissions all of them hold. One context per model call.
 */
export function batchToolContext(turn: {
  channelId: string;
  scopeId: string;
  batch: readonly Trigger[];
  last: Trigger;
  settings: ScopeSettings;
  model: ResolvedModel;
  locale: Locale;
}): (turnId: string) => ToolContext {
  const { channelId, scopeId, batch, last, settings, model, locale } = turn;
  return (turnId) => ({
    scopeId,
    guildId: last.message.guildId,
    channelId,
    userId: last.message.authorId,
    authors: batchAuthors(batch),
    messageId: last.message.id,
    turnId,
    memberPermissions: sharedPermissions(batch),
    locale,
    timeZone: settings.timezone,
    featureFlags: settings.featureFlags,
    providerCapabilities: model.info.vision ? ['images'] : [],
  });
}
