import { z } from 'zod';
import { ToolError } from '../../core/errors.ts';
import type { ToolContext } from '../../core/tool.ts';
import { defineTool, type ToolDefinition } from '../tool-definition.ts';
import type {
  DiscordActions,
  EmojiReference,
  GuildEmoji,
  MessageTarget,
} from './discord-actions.ts';

/** How many names a "not found" answer lists, so the model can pick a real one. */
const LISTED_CHOICES = 40;
const CUSTOM_EMOJI_MARKUP = /^<(a?):([\w~]{2,32}):(\d{17,20})>$/;
// Built at run time: the `v` flag postdates the TypeScript target (Node 24 supports it).
const RGI_EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');

/** react_with_emoji and send_sticker, validated against what the port says the guild has. */
export function createDiscordActionTools(options: { actions: DiscordActions }): ToolDefinition[] {
  const { actions } = options;

  const react = defineTool({
    name: 'react_with_emoji',
    description:
      "React to the message you are answering with an emoji: a standard emoji (e.g. 👍) or one of this server's custom emoji by name (e.g. party_cat).",
    input: z.strictObject({
      emoji: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .describe('A standard emoji, or a custom emoji name.'),
    }),
    availability: { enabledByDefault: true },
    async execute(input, { context, signal }) {
      const emoji = await resolveEmoji(input.emoji, { actions, context, signal });
      await actions.react(targetOf(context), emoji, signal);
      return emoji.kind === 'unicode'
        ? `Reacted with ${emoji.emoji}.`
        : `Reacted with :${emoji.name}:.`;
    },
  });

  const sticker = defineTool({
    name: 'send_sticker',
    description:
      "Send one of this server's stickers with your reply, by name. If you do not know the names, call it anyway: a miss lists them.",
    input: z.strictObject({
      sticker: z.string().trim().min(1).max(100).describe('The sticker name (or id).'),
    }),
    availability: { enabledByDefault: true, where: 'guild' },
    async execute(input, { context, signal }) {
      const guildId = requireGuild(context);
      const available = (await actions.listStickers(guildId, signal)).filter(
        (item) => item.available,
      );
      const wanted = input.sticker.toLowerCase();
      const found =
        available.find((item) => item.id === input.sticker) ??
        available.find((item) => item.name === input.sticker) ??
        available.find((item) => item.name.toLowerCase() === wanted);
      if (found === undefined) {
        throw new ToolError(
          'sticker_not_found',
          available.length === 0
            ? 'This server has no stickers.'
            : `No sticker named "${input.sticker}". Available: ${choices(available.map((item) => item.name))}.`,
        );
      }
      await actions.sendSticker(targetOf(context), found.id, signal);
      return `Sticker "${found.name}" will be sent with your reply.`;
    },
  });

  return [react, sticker];
}

async function resolveEmoji(
  text: string,
  options: { actions: DiscordActions; context: ToolContext; signal: AbortSignal },
): Promise<EmojiReference> {
  const standard = asStandardEmoji(text);
  if (standard !== undefined) return { kind: 'unicode', emoji: standard };
  const guildId = options.context.guildId;
  if (guildId === undefined) {
    throw new ToolError(
      'emoji_invalid',
      `"${text}" is not a standard emoji (only those work in DMs).`,
    );
  }
  const emojis = (await options.actions.listEmojis(guildId, options.signal)).filter(
    (emoji) => emoji.available,
  );
  const found = findCustomEmoji(text, emojis);
  if (found === undefined) {
    throw new ToolError(
      'emoji_invalid',
      emojis.length === 0
        ? `"${text}" is not a standard emoji, and this server has no custom emoji.`
        : `"${text}" is neither a standard emoji nor one of this server's. Custom emoji here: ${choices(emojis.map((emoji) => emoji.name))}.`,
    );
  }
  return { kind: 'custom', id: found.id, name: found.name, animated: found.animated };
}

/** The emoji as Discord expects it, or undefined when the text is not exactly one emoji. */
export function asStandardEmoji(text: string): string | undefined {
  if (RGI_EMOJI.test(text)) return text;
  // Text-presentation forms ("❤") become emoji with the variation selector ("❤️").
  const withSelector = `${text}\uFE0F`;
  return RGI_EMOJI.test(withSelector) ? withSelector : undefined;
}

function findCustomEmoji(text: string, emojis: readonly GuildEmoji[]): GuildEmoji | undefined {
  const markup = CUSTOM_EMOJI_MARKUP.exec(text);
  if (markup !== null) return emojis.find((emoji) => emoji.id === markup[3]);
  const name = text.replace(/^:|:$/g, '');
  return (
    emojis.find((emoji) => emoji.id === name) ??
    emojis.find((emoji) => emoji.name === name) ??
    emojis.find((emoji) => emoji.name.toLowerCase() === name.toLowerCase())
  );
}

function requireGuild(context: ToolContext): string {
  if (context.guildId === undefined)
    throw new ToolError('guild_only', 'This only works in a server.');
  return context.guildId;
}

function targetOf(context: ToolContext): MessageTarget {
  return { guildId: context.guildId, channelId: context.channelId, messageId: context.messageId };
}

function choices(names: readonly string[]): string {
  const listed = names.slice(0, LISTED_CHOICES).join(', ');
  return names.length > LISTED_CHOICES ? `${listed}, … (${names.length} in all)` : listed;
}
