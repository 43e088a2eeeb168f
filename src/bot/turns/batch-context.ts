import type { ToolAuthor, ToolContext } from '../../core/tool.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import type { AcceptedMessage } from '../intake/accepted-message.ts';

/** The distinct authors of a batch, in order of their first message. */
export function batchAuthors(batch: readonly AcceptedMessage[]): ToolAuthor[] {
  const authors = new Map<string, ToolAuthor>();
  for (const { message } of batch) {
    if (!authors.has(message.authorId)) {
      authors.set(message.authorId, { id: message.authorId, name: message.authorName });
    }
  }
  return [...authors.values()];
}

/** Least privilege: the permission bits EVERY author of the batch holds (undefined in DMs). */
export function sharedPermissions(batch: readonly AcceptedMessage[]): string | undefined {
  let shared: bigint | undefined;
  for (const { author } of batch) {
    if (author.permissions === undefined) return undefined;
    const bits = BigInt(author.permissions);
    shared = shared === undefined ? bits : shared & bits;
  }
  return shared?.toString();
}

/**
 * What the tools of a turn act with: the last message's place and author, every author of the
 * batch, only the permissions all of them hold, and the character speaking (its own memories).
 */
export function batchToolContext(turn: {
  id: string;
  batch: readonly AcceptedMessage[];
  last: AcceptedMessage;
  model: ResolvedModel;
}): ToolContext {
  const { batch, last, model } = turn;
  const { scope, settings, locale, speaker } = last.facts;
  return {
    scopeId: scope.id,
    guildId: last.message.guildId,
    channelId: last.message.channelId,
    userId: last.message.authorId,
    authors: batchAuthors(batch),
    messageId: last.message.id,
    ...(speaker === undefined
      ? {}
      : { character: { id: speaker.character.id, name: speaker.character.name } }),
    turnId: turn.id,
    memberPermissions: sharedPermissions(batch),
    locale,
    timeZone: settings.timezone,
    featureFlags: settings.featureFlags,
    providerCapabilities: model.info.vision ? ['images'] : [],
  };
}
