import type { ScopeSettings } from '../core/settings.ts';
import type { InboundMessage } from './inbound-message.ts';
import { TriggerWordMatcher } from './trigger-words.ts';

export type TriggerReason = 'dm' | 'mention' | 'reply' | 'trigger_word' | 'auto_reply' | 'every_n';

/** Feature flag that lets a scope answer other bots (off by default: bot loops cost money). */
export const ANSWER_BOTS_FLAG = 'answerBots';

/**
 * Decides whether a message should get a reply, and why. Pure and in-memory: it runs on every
 * message in every channel, so it never touches the database. Trigger-word matchers are
 * compiled once per settings version; every-N counters live per channel.
 */
export class TriggerDetector {
  private readonly matchers = new Map<string, { version: number; matcher: TriggerWordMatcher }>();
  private readonly counters = new Map<string, number>();
  private readonly botUserId: string;

  constructor(botUserId: string) {
    this.botUserId = botUserId;
  }

  detect(message: InboundMessage, settings: ScopeSettings): TriggerReason | undefined {
    if (message.authorId === this.botUserId) return undefined;
    if (message.authorIsBot && settings.featureFlags[ANSWER_BOTS_FLAG] !== true) return undefined;
    if (message.isDM) return 'dm';
    if (message.mentionsBot) return this.answered(message.channelId, 'mention');
    if (message.repliesToBot) return this.answered(message.channelId, 'reply');
    if (this.matcherFor(settings).matches(message.content)) {
      return this.answered(message.channelId, 'trigger_word');
    }
    if (settings.autoReplyChannelIds.includes(message.channelId)) {
      return this.answered(message.channelId, 'auto_reply');
    }
    const every = settings.autoReplyEveryN;
    if (every !== undefined && every > 0) {
      const count = (this.counters.get(message.channelId) ?? 0) + 1;
      if (count >= every) return this.answered(message.channelId, 'every_n');
      this.counters.set(message.channelId, count);
    }
    return undefined;
  }

  /** The every-N counter counts messages since the bot last answered in the channel. */
  private answered(channelId: string, reason: TriggerReason): TriggerReason {
    this.counters.delete(channelId);
    return reason;
  }

  private matcherFor(settings: ScopeSettings): TriggerWordMatcher {
    const cached = this.matchers.get(settings.scopeId);
    if (cached?.version === settings.version) return cached.matcher;
    const matcher = new TriggerWordMatcher(settings.triggerWords);
    this.matchers.set(settings.scopeId, { version: settings.version, matcher });
    return matcher;
  }
}
