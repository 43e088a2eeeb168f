import { PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { inviteLink, invitePermissions } from './invite-link.ts';

describe('inviteLink', () => {
  it('asks for the bot and applications.commands scopes and the permissions /doctor checks', () => {
    const url = new URL(inviteLink('123456789012345678'));
    expect(`${url.origin}${url.pathname}`).toBe('https://discord.com/oauth2/authorize');
    expect(url.searchParams.get('client_id')).toBe('123456789012345678');
    expect(url.searchParams.get('scope')).toBe('bot applications.commands');
    expect(url.searchParams.get('permissions')).toBe(invitePermissions().toString());
  });

  it('includes reading, sending, history, threads, embeds, files and reactions — and nothing admin', () => {
    const permissions = invitePermissions();
    for (const name of [
      'ViewChannel',
      'SendMessages',
      'ReadMessageHistory',
      'SendMessagesInThreads',
      'EmbedLinks',
      'AttachFiles',
      'AddReactions',
    ] as const) {
      expect(permissions & PermissionFlagsBits[name]).toBe(PermissionFlagsBits[name]);
    }
    expect(permissions & PermissionFlagsBits.Administrator).toBe(0n);
    expect(permissions & PermissionFlagsBits.MentionEveryone).toBe(0n);
  });
});
