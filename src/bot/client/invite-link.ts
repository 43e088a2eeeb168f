import { OAuth2Scopes, PermissionsBitField, type PermissionFlagsBits } from 'discord.js';

const AUTHORIZE_URL = 'https://discord.com/oauth2/authorize';

/** Without these the bot cannot take part at all; without the others it is only diminished. */
export const ESSENTIAL_PERMISSIONS = ['ViewChannel', 'SendMessages', 'ReadMessageHistory'] as const;
export const USEFUL_PERMISSIONS = ['EmbedLinks', 'AttachFiles', 'AddReactions'] as const;

/**
 * The permissions the bot asks for when invited: exactly what `/doctor` checks (the essential
 * ones, the useful ones, and sending in threads), so the two can never drift apart.
 */
export function invitePermissions(): bigint {
  return new PermissionsBitField([
    ...ESSENTIAL_PERMISSIONS,
    ...USEFUL_PERMISSIONS,
    'SendMessagesInThreads',
  ] satisfies (keyof typeof PermissionFlagsBits)[]).bitfield;
}

/** The OAuth2 link that adds the bot to a server with its slash commands and permissions. */
export function inviteLink(applicationId: string): string {
  const query = new URLSearchParams({
    client_id: applicationId,
    scope: [OAuth2Scopes.Bot, OAuth2Scopes.ApplicationsCommands].join(' '),
    permissions: invitePermissions().toString(),
  });
  return `${AUTHORIZE_URL}?${query.toString()}`;
}
