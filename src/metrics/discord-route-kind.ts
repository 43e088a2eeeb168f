/** What a Discord REST request did, as a bounded label (never an id). */
export type DiscordRequestKind =
  | 'message_create'
  | 'message_edit'
  | 'message_delete'
  | 'message_read'
  | 'typing'
  | 'reaction'
  | 'interaction'
  | 'other';

const MESSAGES = /^\/channels\/[^/]+\/messages$/;
const MESSAGE = /^\/channels\/[^/]+\/messages\/[^/]+$/;
const TYPING = /^\/channels\/[^/]+\/typing$/;
const REACTION = /\/reactions(\/|$)/;
const INTERACTION = /^\/(interactions|webhooks)\//;

/** Classifies a request from its method and route (discord.js's template or the raw path). */
export function discordRequestKind(method: string, route: string): DiscordRequestKind {
  const verb = method.toUpperCase();
  if (INTERACTION.test(route)) return 'interaction';
  if (REACTION.test(route)) return 'reaction';
  if (TYPING.test(route)) return 'typing';
  if (MESSAGES.test(route)) return verb === 'POST' ? 'message_create' : 'message_read';
  if (MESSAGE.test(route)) {
    if (verb === 'PATCH') return 'message_edit';
    if (verb === 'DELETE') return 'message_delete';
    return 'message_read';
  }
  return 'other';
}

/** 2xx, 4xx, 5xx, with 429 on its own. */
export function statusClass(status: number): string {
  if (status === 429) return '429';
  return `${Math.floor(status / 100)}xx`;
}
