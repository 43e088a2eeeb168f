import {
  AttachmentBuilder,
  InteractionContextType,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
} from 'discord.js';
import { summaryOf } from '../../../db/summary-repository.ts';
import { recentTurns, resetMarkerOf } from '../../../db/turn-repository.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import { commandText } from '../command-text.ts';
import { holdsPermission } from '../command-access.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import { loadUsageReport } from '../usage/usage-command.ts';
import { renderConversationExport, type ExportFormat } from './conversation-export.ts';

/**
 * Discord lets a bot upload 10 MiB per attachment by default (less in some places, more with
 * boosts); the file stays well below, so it always goes through.
 */
export const EXPORT_BYTE_LIMIT = 4 * 1024 * 1024;
/** Turns read at most: the newest ones since the reset. */
const EXPORT_TURN_LIMIT = 2_000;

const text = commandText({
  en: {
    description: 'This channel’s conversation since the last reset, as a file',
    format: 'File format',
    markdown: 'Markdown (for reading)',
    json: 'JSON (for tools)',
    done: 'The conversation in this channel since the last reset: {count} turns.',
    truncated: 'Older turns were left out to keep the file under 4 MB.',
    none: 'There is nothing to export: no conversation here since the last reset.',
  },
  ja: {
    description: '最後のリセット以降のこのチャンネルの会話をファイルで取得',
    format: 'ファイル形式',
    markdown: 'Markdown（読む用）',
    json: 'JSON（ツール用）',
    done: '最後のリセット以降のこのチャンネルの会話：{count} ターン。',
    truncated: 'ファイルを 4 MB 未満に収めるため、古いターンは省きました。',
    none: '書き出すものがありません：最後のリセット以降、ここでの会話はありません。',
  },
});

/**
 * What `/usage` shows, as JSON beside the conversation: the last 30 days by day, model and (for
 * Manage Server, as in `/usage`) member, in tokens and nano-dollars.
 */
async function usageAttachment(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<AttachmentBuilder> {
  const whole = holdsPermission(interaction, context, 'ManageGuild');
  const view = { scopeId: context.scope.id, memberId: whole ? undefined : interaction.user.id };
  const report = await loadUsageReport(context.services.db, view, context.services.clock.now());
  const body = JSON.stringify(
    { scope: whole ? 'server' : 'member', money: 'nano-USD', ...report },
    null,
    2,
  );
  return new AttachmentBuilder(Buffer.from(body, 'utf8'), {
    name: `usage-${context.scope.id}.json`,
  });
}

/**
 * `/export format`: the stored conversation of this channel since the reset — the members'
 * messages the bot answered and its replies, with authors and times — as an ephemeral
 * attachment, with the usage (`usage-<scope>.json`: the invoker's own, or the server's for
 * Manage Server). Anyone who can use commands here may export: it holds only what was said in
 * this channel, which they can read, and usage they may see with `/usage`.
 */
export function exportCommand(): SlashCommand {
  const builder = new SlashCommandBuilder()
    .setName('export')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .addStringOption((option) =>
      text
        .describe(option.setName('format').setRequired(true), 'format')
        .addChoices(text.choice('markdown', 'markdown'), text.choice('json', 'json')),
    );
  return {
    definition: text.describe(builder, 'description').toJSON(),
    category: 'conversation',
    async execute(interaction, context) {
      const format = interaction.options.getString('format', true) as ExportFormat;
      await deferIfSlow(interaction);
      const { db, clock } = context.services;
      const channelId = interaction.channelId;
      const resetAt = await resetMarkerOf(db, channelId);
      const newestFirst = await recentTurns(db, channelId, {
        limit: EXPORT_TURN_LIMIT + 1,
        after: resetAt,
      });
      if (newestFirst.length === 0) {
        await respond(interaction, text.get(context.locale, 'none'));
        return;
      }
      const usageFile = await usageAttachment(interaction, context);
      const rollingSummary = await summaryOf(db, channelId);
      const exported = renderConversationExport({
        format,
        channelId,
        summary: rollingSummary?.content,
        turns: newestFirst
          .slice(0, EXPORT_TURN_LIMIT)
          .reverse()
          .map((turn) => ({ ...turn, pinned: turn.pinnedAt !== null })),
        olderLeftOut: newestFirst.length > EXPORT_TURN_LIMIT,
        resetAt,
        exportedAt: new Date(clock.now()),
        byteLimit: EXPORT_BYTE_LIMIT,
      });
      const file = new AttachmentBuilder(Buffer.from(exported.body, 'utf8'), {
        name: `conversation-${channelId}.${format === 'json' ? 'json' : 'md'}`,
      });
      const summary = text.get(context.locale, 'done', { count: exported.included });
      const content = exported.truncated
        ? `${summary}\n${text.get(context.locale, 'truncated')}`
        : summary;
      context.logger.info({ turns: exported.included, format }, 'conversation exported');
      await respond(interaction, { content, files: [file, usageFile] });
    },
  };
}
