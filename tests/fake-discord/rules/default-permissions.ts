import { permissionBits } from './permissions.ts';

/** What a new server's @everyone role holds (Discord's defaults, MENTION_EVERYONE included). */
export const DEFAULT_EVERYONE_PERMISSIONS = permissionBits([
  'CreateInstantInvite',
  'ChangeNickname',
  'ViewChannel',
  'SendMessages',
  'SendMessagesInThreads',
  'CreatePublicThreads',
  'CreatePrivateThreads',
  'EmbedLinks',
  'AttachFiles',
  'AddReactions',
  'UseExternalEmojis',
  'UseExternalStickers',
  'MentionEveryone',
  'ReadMessageHistory',
  'Connect',
  'Speak',
  'Stream',
  'UseVAD',
  'UseApplicationCommands',
  'RequestToSpeak',
  'UseEmbeddedActivities',
  'SendVoiceMessages',
  'SendPolls',
  'UseExternalApps',
]);

/** What the bot's managed role gets when an invite asks for a typical chat bot's permissions. */
export const DEFAULT_BOT_PERMISSIONS = permissionBits([
  'ViewChannel',
  'SendMessages',
  'SendMessagesInThreads',
  'EmbedLinks',
  'AttachFiles',
  'ReadMessageHistory',
  'AddReactions',
  'UseExternalEmojis',
]);
