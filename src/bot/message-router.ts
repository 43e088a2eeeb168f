import { PermissionFlagsBits, type Message, type PartialMessage } from 'discord.js';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { ScopeSettings } from '../core/settings.ts';
import type { Database } from '../db/database.ts';
import { claimMessage } from '../db/claim-repository.ts';
import { ensureScope } from '../db/scope-settings-repository.ts';
import { forgetUserMessage, reviseUserMessage } from '../db/turn-repository.ts';
import type { StopRegistry } from '../stream/stop-registry.ts';
import { botAddressForms } from './bot-address-forms.ts';
import type { ChannelHistory } from './channel-history.ts';
import type { ChannelTurnScheduler } from './channel-turn-scheduler.ts';
import type { DailyBudget } from './daily-budget.ts';
import { allowedMentionsFor } from './delivery/message-target.ts';
import { resolveLocale } from './i18n/locale.ts';
import { translate, type MessageKey } from './i18n/messages.ts';
import type { InboundMessage } from './inbound-message.ts';
import type { MemberRateLimiter } from './member-rate-limiter.ts';
import {
  isSupportedChannel,
  scopeOf,
  toHistoryMessage,
  toInboundMessage,
} from './message-intake.ts';
import type { SettingsCache } from './settings-cache.ts';
import type { TriggerDetector } from './trigger-detector.ts';
import type { Trigger } from './trigger.ts';

/** One notice of a kind per member per minute: a notice must never become spam itself. */
const NOTICE_INTERVAL_MS = 60_000;

export interface MessageRouterOptions {
  db: Database;
  settings: SettingsCache;
  history: ChannelHistory;
  detector: TriggerDetector;
  stops: StopRegistry;
  scheduler: ChannelTurnScheduler<Trigger>;
  rateLimiter: MemberRateLimiter;
  dailyBudget: DailyBudget;
  clock: Clock;
  logger: Logger;
  instanceId: string;
  botUserId: string;
  ownerIds: readonly string[];
}

/**
 * Phase 1 of the message flow (seed 003): channel check, history window, natural stop, trigger,
 * member rate limit and daily budget, the multi-process claim, then the channel's scheduler.
 * A message that does not trigger costs no database access (settings are cached).
 */
export class MessageRouter {
  private readonly options: MessageRouterOptions;
  private readonly knownScopes = new Set<string>();
  private readonly notices = new Map<string, number>();
  private accepting = true;

  constructor(options: MessageRouterOptions) {
    this.options = options;
  }

  /** Stops taking new triggers (shutdown); stops and history still work. */
  close(): void {
    this.accepting = false;
  }

  async onMessageCreate(message: Message): Promise<void> {
    try {
      await this.route(message);
    } catch (error) {
      this.options.logger.error(
        { err: error, messageId: message.id },
        'could not handle a message',
      );
    }
  }

  onMessageUpdate(old: Message | PartialMessage, message: Message | PartialMessage): void {
    if (message.partial || message.content === null) return;
    // Discord also sends updates when a link's embed resolves: nothing to store then.
    if (!old.partial && old.content === message.content) return;
    this.options.history.update(message.channelId, {
      id: message.id,
      content: message.cleanContent,
    });
    if (message.author?.id !== this.options.botUserId) {
      void this.storeMessageChange(message.id, () =>
        reviseUserMessage(this.options.db, message.id, message.content ?? ''),
      );
    }
  }

  onMessageDelete(message: Message | PartialMessage): void {
    this.options.history.remove(message.channelId, message.id);
    if (message.author?.id === this.options.botUserId) return;
    void this.storeMessageChange(message.id, () => forgetUserMessage(this.options.db, message.id));
  }

  /** Edits and deletes reach the stored user turns too: context and /export follow the member. */
  private async storeMessageChange(
    messageId: string,
    change: () => Promise<number>,
  ): Promise<void> {
    try {
      const changed = await change();
      if (changed > 0) this.options.logger.debug({ messageId }, 'stored turn follows its message');
    } catch (error) {
      this.options.logger.warn({ err: error, messageId }, 'could not update a stored turn');
    }
  }

  private async route(message: Message): Promise<void> {
    const { botUserId } = this.options;
    if (!isSupportedChannel(message.channel)) {
      if (message.author.id !== botUserId && message.mentions.users.has(botUserId)) {
        await this.notify(message, 'note.channel_unsupported', {}, undefined);
      }
      return;
    }
    this.options.history.add(message.channelId, toHistoryMessage(message));
    if (message.author.id === botUserId) return;

    const inbound = toInboundMessage(message, botUserId);
    const scope = scopeOf(inbound);
    const settings = await this.options.settings.get(scope.id);
    const isModerator = this.isModerator(message);
    if (this.stopped(inbound, botAddressForms(message, settings.triggerWords), isModerator)) return;

    const reason = this.options.detector.detect(inbound, settings);
    if (reason === undefined || !this.accepting) return;
    const now = this.options.clock.now();
    const limit = {
      scopeId: scope.id,
      memberId: inbound.authorId,
      perMinute: settings.memberTurnsPerMinute,
      now,
    };
    if (!this.options.rateLimiter.tryTake(limit)) {
      const seconds = Math.ceil(this.options.rateLimiter.retryAfterMs(limit) / 1000);
      await this.notify(message, 'note.member_rate_limited', { seconds }, settings);
      return;
    }
    if (await this.options.dailyBudget.exhausted(scope.id, settings.dailyTokenBudget)) {
      await this.notify(message, 'note.budget_exhausted', {}, settings);
      return;
    }
    if (!(await claimMessage(this.options.db, message.id, this.options.instanceId))) return;
    if (!this.knownScopes.has(scope.id)) {
      await ensureScope(this.options.db, scope.id, scope.kind);
      this.knownScopes.add(scope.id);
    }
    const trigger: Trigger = {
      message: inbound,
      reason,
      memberPermissions: message.member?.permissionsIn(message.channelId).bitfield.toString(),
      isModerator,
    };
    this.submit(trigger, settings, message);
  }

  /** Submits a trigger to its channel's scheduler (also used by the Retry button). */
  submit(trigger: Trigger, settings: ScopeSettings, replyTo: Message | undefined): void {
    const outcome = this.options.scheduler.submit(trigger.message.channelId, trigger, {
      policy: settings.queuePolicy,
      depth: settings.queueDepth,
    });
    if (outcome === 'rejected' && replyTo !== undefined) {
      void this.notify(replyTo, 'note.queue_full', {}, settings);
    }
  }

  /** Whether the message stops the channel's live turn (it then triggers nothing else). */
  private stopped(
    inbound: InboundMessage,
    addressForms: readonly string[],
    isModerator: boolean,
  ): boolean {
    if (this.options.stops.liveTurn(inbound.channelId) === undefined) return false;
    const decision = this.options.stops.consider({
      channelId: inbound.channelId,
      messageId: inbound.id,
      authorId: inbound.authorId,
      authorName: inbound.authorName,
      content: inbound.content,
      authorIsModerator: isModerator,
      addressForms,
    });
    if (decision.stopped) {
      this.options.logger.info(
        { channelId: inbound.channelId, turnId: decision.request.turnId },
        'stopped by a member',
      );
    }
    return decision.stopped;
  }

  private isModerator(message: Message): boolean {
    if (this.options.ownerIds.includes(message.author.id)) return true;
    const permissions = message.member?.permissionsIn(message.channelId);
    return permissions?.has(PermissionFlagsBits.ManageMessages) ?? false;
  }

  private async notify(
    message: Message,
    key: MessageKey,
    params: Record<string, string | number>,
    settings: ScopeSettings | undefined,
  ): Promise<void> {
    const now = this.options.clock.now();
    const noticeKey = `${key}:${message.author.id}`;
    if ((this.notices.get(noticeKey) ?? 0) > now) return;
    this.notices.set(noticeKey, now + NOTICE_INTERVAL_MS);
    if (this.notices.size > 10_000) {
      for (const [entry, until] of this.notices) if (until <= now) this.notices.delete(entry);
    }
    const locale = resolveLocale(settings?.language, message.guild?.preferredLocale);
    try {
      await message.reply({
        content: translate(locale, key, params),
        allowedMentions: { ...allowedMentionsFor({ allowUserMentions: false }) },
      });
    } catch (error) {
      this.options.logger.debug({ err: error }, 'could not post a notice');
    }
  }
}
