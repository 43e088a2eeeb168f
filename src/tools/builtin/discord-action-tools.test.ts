import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import type { ToolContext } from '../../core/tool.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { ToolRegistry } from '../tool-registry.ts';
import { asStandardEmoji, createDiscordActionTools } from './discord-action-tools.ts';
import type {
  DiscordActions,
  EmojiReference,
  GuildEmoji,
  GuildSticker,
  MessageTarget,
} from './discord-actions.ts';
import { like } from '../../../tests/tools/support/matchers.ts';

const GUILD_CONTEXT: ToolContext = {
  scopeId: '100000000000000001',
  guildId: '100000000000000001',
  channelId: '200000000000000002',
  userId: '300000000000000003',
  messageId: '400000000000000004',
  turnId: 't',
  memberPermissions: '0',
  locale: 'en-US',
};
const DM_CONTEXT: ToolContext = {
  ...GUILD_CONTEXT,
  scopeId: GUILD_CONTEXT.userId,
  guildId: undefined,
  memberPermissions: undefined,
};

/** Stands in for the bot's implementation and records what the tools asked for. */
class RecordingActions implements DiscordActions {
  readonly reactions: Array<{ target: MessageTarget; emoji: EmojiReference }> = [];
  readonly stickers: Array<{ target: MessageTarget; stickerId: string }> = [];
  emojis: GuildEmoji[] = [
    { id: '500000000000000001', name: 'party_cat', animated: true, available: true },
    { id: '500000000000000002', name: 'old_boost', animated: false, available: false },
  ];
  guildStickers: GuildSticker[] = [
    { id: '600000000000000001', name: 'Wave', description: 'hi', available: true },
  ];

  listEmojis() {
    return Promise.resolve(this.emojis);
  }
  listStickers() {
    return Promise.resolve(this.guildStickers);
  }
  react(target: MessageTarget, emoji: EmojiReference) {
    this.reactions.push({ target, emoji });
    return Promise.resolve();
  }
  sendSticker(target: MessageTarget, stickerId: string) {
    this.stickers.push({ target, stickerId });
    return Promise.resolve();
  }
}

function setup() {
  const actions = new RecordingActions();
  const registry = new ToolRegistry({ clock: new ManualClock(), logger: silentLogger }).register(
    ...createDiscordActionTools({ actions }),
  );
  const run = (context: ToolContext, name: string, input: unknown) =>
    registry.execute({ id: 'c', name, input }, context, new AbortController().signal);
  return { actions, registry, run };
}

describe('react_with_emoji', () => {
  it('reacts to the message being answered with a standard or a custom emoji of the guild', async () => {
    const { actions, run } = setup();
    expect(await run(GUILD_CONTEXT, 'react_with_emoji', { emoji: '👍🏽' })).toEqual({
      ok: true,
      output: 'Reacted with 👍🏽.',
    });
    expect(await run(GUILD_CONTEXT, 'react_with_emoji', { emoji: ':party_cat:' })).toMatchObject({
      ok: true,
    });
    expect(
      await run(GUILD_CONTEXT, 'react_with_emoji', { emoji: '<a:party_cat:500000000000000001>' }),
    ).toMatchObject({ ok: true });
    expect(actions.reactions).toEqual([
      {
        target: {
          guildId: GUILD_CONTEXT.guildId,
          channelId: GUILD_CONTEXT.channelId,
          messageId: GUILD_CONTEXT.messageId,
        },
        emoji: { kind: 'unicode', emoji: '👍🏽' },
      },
      like({
        emoji: { kind: 'custom', id: '500000000000000001', name: 'party_cat', animated: true },
      }),
      like({ emoji: like({ id: '500000000000000001' }) }),
    ]);
  });

  it('refuses text, unavailable or foreign custom emoji and lists the real ones', async () => {
    const { actions, run } = setup();
    expect(await run(GUILD_CONTEXT, 'react_with_emoji', { emoji: 'lol' })).toEqual({
      ok: false,
      error:
        '"lol" is neither a standard emoji nor one of this server\'s. Custom emoji here: party_cat.',
    });
    expect(await run(GUILD_CONTEXT, 'react_with_emoji', { emoji: 'old_boost' })).toMatchObject({
      ok: false,
    });
    expect(
      await run(GUILD_CONTEXT, 'react_with_emoji', { emoji: '<:stolen:599999999999999999>' }),
    ).toMatchObject({ ok: false });
    expect(await run(GUILD_CONTEXT, 'react_with_emoji', { emoji: '👍👍' })).toMatchObject({
      ok: false,
    });
    expect(await run(DM_CONTEXT, 'react_with_emoji', { emoji: 'party_cat' })).toEqual({
      ok: false,
      error: '"party_cat" is not a standard emoji (only those work in DMs).',
    });
    expect(actions.reactions).toEqual([]);
  });

  it('accepts text-presentation emoji by adding the emoji variation selector', () => {
    expect(asStandardEmoji('❤')).toBe('❤\uFE0F');
    expect(asStandardEmoji('🇫🇷')).toBe('🇫🇷');
    expect(asStandardEmoji('a')).toBeUndefined();
    expect(asStandardEmoji('1')).toBeUndefined();
  });
});

describe('send_sticker', () => {
  it("sends one of the guild's stickers by name and is not offered in DMs", async () => {
    const { actions, registry, run } = setup();
    expect(await run(GUILD_CONTEXT, 'send_sticker', { sticker: 'wave' })).toEqual({
      ok: true,
      output: 'Sticker "Wave" will be sent with your reply.',
    });
    expect(actions.stickers).toEqual([
      {
        target: like({ messageId: GUILD_CONTEXT.messageId }),
        stickerId: '600000000000000001',
      },
    ]);
    expect(registry.specs(DM_CONTEXT).map((spec) => spec.name)).toEqual(['react_with_emoji']);
    expect(await run(GUILD_CONTEXT, 'send_sticker', { sticker: 'dance' })).toEqual({
      ok: false,
      error: 'No sticker named "dance". Available: Wave.',
    });
  });
});
