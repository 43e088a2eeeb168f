import { LruMap } from '../../core/lru-map.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import type { InboundMessage } from '../client/inbound-message.ts';
import { ANSWER_BOTS_FLAG, isSwitchOn } from '../settings/reply-switches.ts';
import { TriggerWordMatcher } from './trigger-words.ts';

export { ANSWER_BOTS_FLAG } from '../settings/reply-switches.ts';

/** The loop guard: replies to other bots in a row in one channel, until a person writes. */
export const MAX_BOT_TURNS_IN_A_ROW = 3;
/** Channels whose bot-to-bot run and every-N count are remembered; the least recent is forgotten. */
export const TRIGGER_CHANNELS = 10_000;
/** Scopes whose compiled trigger words are kept; a forgotten one is compiled again when needed. */
export const TRIGGER_SCOPES = 10_000;

export interface TriggerDetectorLimits {
  /** Channels remembered (default TRIGGER_CHANNELS): a forgotten every-N count starts over. */
  channels?: number;
  /** Scopes whose trigger-word matcher is kept (default TRIGGER_SCOPES). */
  scopes?: number;
}

/** `character`: the message addresses a character on the channel's stage (intake decides it). */
export type TriggerReason =
  'dm' | 'mention' | 'reply' | 'trigger_word' | 'auto_reply' | 'every_n' | 'character';

/**
 * Decides whether a message should get a reply, and why. Pure and in-memory: it runs on every
 * message in every channel, so it never touches the database. Trigger-word matchers are
 * compiled once per settings version; every-N counters live per channel.
 */
export class TriggerDetector {
  private readonly matchers: LruMap<string, { version: number; matcher: TriggerWordMatcher }>;
  private readonly counters: LruMap<string, number>;
  /** Per channel: the other bots' messages answered in a row (at most the limit's worth). */
  private readonly botRuns: LruMap<string, readonly string[]>;
  private readonly botUserId: string;

  constructor(botUserId: string, limits: TriggerDetectorLimits = {}) {
    this.botUserId = botUserId;
    this.matchers = new LruMap(limits.scopes ?? TRIGGER_SCOPES);
    this.counters = new LruMap(limits.channels ?? TRIGGER_CHANNELS);
    this.botRuns = new LruMap(limits.channels ?? TRIGGER_CHANNELS);
  }

  /** Entries kept per memory: what the cache limits bound. */
  retained(): { matchers: number; counters: number; botRuns: number } {
    return {
      matchers: this.matchers.size,
      counters: this.counters.size,
      botRuns: this.botRuns.size,
    };
  }

  /** A message heard live (or backfilled after a lost gateway session). */
  detect(message: InboundMessage, settings: ScopeSettings): TriggerReason | undefined {
    return this.guarded(message, settings, () => this.reasonFor(message, settings));
  }

  /**
   * A message claimed before a restart (or by a process that stopped) and never answered: it
   * was a trigger then, so it stays one when its reason cannot be derived again (an every-N
   * count did not survive the restart) — but the loop guard decides, and counts, as for a live
   * message: a bot's message beyond the limit, or with answer-bots off, is not answered.
   */
  detectRecovered(message: InboundMessage, settings: ScopeSettings): TriggerReason | undefined {
    return this.guarded(message, settings, () => this.reasonFor(message, settings) ?? 'mention');
  }

  /**
   * Whether the guard has no run for the channel of another bot's message it is about to judge
   * (a restart, or a channel forgotten): `restoreRun` then gives it the one read back.
   */
  lacksRun(message: InboundMessage, settings: ScopeSettings): boolean {
    return (
      message.authorIsBot &&
      message.authorId !== this.botUserId &&
      isSwitchOn(settings, ANSWER_BOTS_FLAG) &&
      !this.botRuns.has(message.channelId)
    );
  }

  /** The bot messages answered in a row in a channel, as read back from its history. */
  restoreRun(channelId: string, messageIds: readonly string[]): void {
    if (!this.botRuns.has(channelId)) this.botRuns.set(channelId, [...messageIds]);
  }

  private guarded(
    message: InboundMessage,
    settings: ScopeSettings,
    reasonFor: () => TriggerReason | undefined,
  ): TriggerReason | undefined {
    if (message.authorId === this.botUserId) return undefined;
    if (!message.authorIsBot) {
      this.botRuns.set(message.channelId, []);
      return reasonFor();
    }
    // Two bots that answer each other would talk forever, at the scope's expense.
    if (!isSwitchOn(settings, ANSWER_BOTS_FLAG)) return undefined;
    const run = this.botRuns.get(message.channelId) ?? [];
    // Heard twice (a backfill overlapping the gateway, a peer's claim recovered here): one turn.
    if (run.includes(message.id)) return reasonFor();
    if (run.length >= MAX_BOT_TURNS_IN_A_ROW) return undefined;
    const reason = reasonFor();
    if (reason !== undefined) this.botRuns.set(message.channelId, [...run, message.id]);
    return reason;
  }

  private reasonFor(message: InboundMessage, settings: ScopeSettings): TriggerReason | undefined {
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
