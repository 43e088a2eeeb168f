import type { DiscordActions } from '../../../src/tools/builtin/discord-actions.ts';

/** DiscordActions for tests that never react or send stickers: no emojis, no stickers. */
export const noDiscordActions: DiscordActions = {
  listEmojis: () => Promise.resolve([]),
  listStickers: () => Promise.resolve([]),
  react: () => Promise.resolve(),
  sendSticker: () => Promise.resolve(),
};
