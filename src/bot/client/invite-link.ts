import { OAuth2Scopes, PermissionsBitField, type PermissionFlagsBits } from 'discord.js';
import {
  ESSENTIAL_PERMISSIONS,
  USEFUL_PERMISSIONS,
} from '../commands/diagnostics/doctor-checks.ts';

const AUTHORIZE_URL = 'https://discord.com/oauth2/authorize';

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
