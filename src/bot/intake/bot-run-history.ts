import type { ScopeSettings } from '../../core/settings.ts';
import {
  compareSnowflakes,
  type HistoryMessage,
  type InboundMessage,
} from '../client/inbound-message.ts';
import type { ChannelHistory } from '../context/channel-history.ts';
import type { TriggerDetector } from './trigger-detector.ts';

/**
 * The other bots' messages this bot answered in a row before `beforeId`, read from the channel's
 * history: newest first back to the last person's message, every bot message one of the bot's
 * own messages replies to (a reply in several messages counts once).
 */
export function botRunFromHistory(
  history: readonly HistoryMessage[],
  options: { botUserId: string; beforeId: string },
): string[] {
  const earlier = history
    .filter((message) => compareSnowflakes(message.id, options.beforeId) < 0)
    .sort((a, b) => compareSnowflakes(b.id, a.id));
  const byId = new Map(earlier.map((message) => [message.id, message]));
  const answered: string[] = [];
  for (const message of earlier) {
    if (!message.authorIsBot) break;
    if (message.authorId !== options.botUserId || message.replyToMessageId === undefined) continue;
    const repliedTo = byId.get(message.replyToMessageId);
    if (repliedTo === undefined || !repliedTo.authorIsBot) continue;
    if (repliedTo.authorId === options.botUserId || answered.includes(repliedTo.id)) continue;
    answered.unshift(repliedTo.id);
  }
  return answered;
}

/**
 * The bot-loop guard's count lives in memory: the first time another bot's message is judged in
 * a channel after a restart, it is read back from the channel's history (one fetch per channel,
 * which answering it would make anyway), so a restart does not grant a fresh allowance.
 */
export async function recallBotRun(options: {
  detector: TriggerDetector;
  history: ChannelHistory;
  botUserId: string;
  inbound: InboundMessage;
  settings: ScopeSettings;
}): Promise<void> {
  const { detector, inbound } = options;
  if (!detector.lacksRun(inbound, options.settings)) return;
  const history = await options.history.recent(inbound.channelId);
  const run = botRunFromHistory(history, { botUserId: options.botUserId, beforeId: inbound.id });
  detector.restoreRun(inbound.channelId, run);
}
