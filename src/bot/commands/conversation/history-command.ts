import { EmbedBuilder, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { recentTurns, resetMarkerOf } from '../../../db/turn-repository.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import { commandText } from '../command-text.ts';
import type { SlashCommand } from '../slash-command.ts';
import { summarizeTurn } from './turn-summary.ts';

/** Replies shown by default, and at most (one embed field each, far below Discord's 25). */
const DEFAULT_COUNT = 5;
const MAX_COUNT = 10;

const text = commandText({
  en: {
    description: 'My last replies in this channel, with their metrics',
    count: 'How many replies to show (1–10, default 5)',
    title: 'My last {count} replies here',
    sinceReset: 'Since the last /reset',
    none: 'I have not replied in this channel since the last reset.',
  },
  ja: {
    description: 'このチャンネルでの直近の返信とそのメトリクス',
    count: '表示する返信の数（1〜10、既定は5）',
    title: 'ここでの直近 {count} 件の返信',
    sinceReset: '最後の /reset 以降',
    none: '最後のリセット以降、このチャンネルではまだ返信していません。',
  },
});

/**
 * `/history [count]`: the channel's last assistant turns since the reset, newest first, with
 * what `metrics` holds (tokens in/out, time to first token, tokens/s, status, tools). Ephemeral.
 */
export function historyCommand(): SlashCommand {
  const builder = new SlashCommandBuilder()
    .setName('history')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .addIntegerOption((option) =>
      text.describe(option.setName('count').setMinValue(1).setMaxValue(MAX_COUNT), 'count'),
    );
  return {
    definition: text.describe(builder, 'description').toJSON(),
    category: 'conversation',
    async execute(interaction, context) {
      const count = interaction.options.getInteger('count') ?? DEFAULT_COUNT;
      await deferIfSlow(interaction);
      const { db } = context.services;
      const resetAt = await resetMarkerOf(db, interaction.channelId);
      const turns = await recentTurns(db, interaction.channelId, {
        limit: count,
        role: 'assistant',
        after: resetAt,
      });
      if (turns.length === 0) {
        await respond(interaction, text.get(context.locale, 'none'));
        return;
      }
      const embed = new EmbedBuilder()
        .setTitle(text.get(context.locale, 'title', { count: turns.length }))
        .addFields(turns.map((turn) => summarizeTurn(turn, context.locale)));
      if (resetAt !== undefined)
        embed.setFooter({ text: text.get(context.locale, 'sinceReset') }).setTimestamp(resetAt);
      await respond(interaction, { embeds: [embed] });
    },
  };
}
