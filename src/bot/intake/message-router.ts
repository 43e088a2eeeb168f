import { PermissionFlagsBits, type Message, type PartialMessage } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import type { Database } from '../../db/database.ts';
import { claimMessage } from '../../db/claim-repository.ts';
import { ensureScope } from '../../db/scope-settings-repository.ts';
import type { StopRegistry } from '../../stream/stop/stop-registry.ts';
import { botAddressForms } from './bot-address-forms.ts';
import { recallBotRun } from './bot-run-history.ts';
import type { ChannelHistory } from '../context/channel-history.ts';
import { ChannelIntake } from './channel-intake.ts';
import type { ChannelTurnScheduler } from '../turns/channel-turn-scheduler.ts';
import type { DailyBudget } from '../limits/daily-budget.ts';
import type { InboundMessage } from './inbound-message.ts';
import type { MemberNotices } from '../delivery/member-notices.ts';
import { MemberStops, type MemberStopsOptions } from '../stops/member-stops.ts';
import { MessageChanges } from './message-changes.ts';
import type { MemberRateLimiter } from '../limits/member-rate-limiter.ts';
import {
  isSupportedChannel,
  scopeOf,
  toHistoryMessage,
  toInboundMessage,
} from './message-intake.ts';
import type { DatabaseStep } from './outage-hold.ts';
import { admitRetry, type RetryAdmission } from './retry-admission.ts';
import type { SettingsCache } from '../settings/settings-cache.ts';
import type { TriggerDetector } from './trigger-detector.ts';
import type { Trigger } from './trigger.ts';

/** Messages of one channel waiting for intake at most (a burst beyond it is refused, and told). */
const INTAKE_BACKLOG_PER_CHANNEL = 500;
/** Scopes known to exist, remembered to skip their upsert. */
const KNOWN_SCOPES = 10_000;

export type { DatabaseStep, RetryAdmission };

export interface MessageRouterOptions {
  db: Database;
  settings: SettingsCache;
  history: ChannelHistory;
  detector: TriggerDetector;
  stops: StopRegistry;
  /** Stops heard here for a reply another process streams (several processes, one database). */
  remoteStops?: MemberStopsOptions['remoteStops'];
  scheduler: ChannelTurnScheduler<Trigger>;
  rateLimiter: MemberRateLimiter;
  dailyBudget: DailyBudget;
  notices: MemberNotices;
  /** Wraps every database step of intake (default: run it once). */
  databaseStep?: DatabaseStep;
  /** Releases the claim of a message that will not be answered here (withdrawn, refused). */
  settle?(messageIds: readonly string[]): void;
  clock: Clock;
  logger: Logger;
  instanceId: string;
  botUserId: string;
  ownerIds: readonly string[];
}

/**
 * Phase 1 of the message flow (seed 003): channel check, history window, natural stop, trigger,
 * member rate limit and daily budget, the multi-process claim, then the channel's scheduler —
 * in gateway order per channel (ChannelIntake). A message that does not trigger costs no
 * database access (settings are cached). Every message that triggers the bot ends up answered,
 * refused with a reason (rate limit, budget, queue full, storage trouble) or stopped.
 */
export class MessageRouter {
  private readonly options: MessageRouterOptions;
  private readonly knownScopes = new LruMap<string, true>(KNOWN_SCOPES);
  private readonly intake: ChannelIntake;
  private readonly databaseStep: DatabaseStep;
  private readonly memberStops: MemberStops;
  private readonly changes: MessageChanges;
  private accepting = true;

  constructor(options: MessageRouterOptions) {
    this.options = options;
    this.databaseStep = options.databaseStep ?? ((step) => step());
    this.memberStops = new MemberStops(options);
    this.changes = new MessageChanges(options);
    this.intake = new ChannelIntake({
      maxBacklog: INTAKE_BACKLOG_PER_CHANNEL,
      onError: (error) => options.logger.error({ err: error }, 'could not handle a message'),
    });
  }

  /** Stops taking new triggers (shutdown); stops and history still work. */
  close(): void {
    this.accepting = false;
  }

  /** Resolves once every message received so far has been through intake. */
  drained(): Promise<void> {
    return this.intake.drained();
  }

  onMessageCreate(message: Message): void {
    try {
      this.receive(message);
    } catch (error) {
      this.options.logger.error(
        { err: error, messageId: message.id },
        'could not handle a message',
      );
    }
  }

  onMessageUpdate(old: Message | PartialMessage, message: Message | PartialMessage): void {
    this.changes.updated(old, message);
  }

  onMessageDelete(message: Message | PartialMessage): void {
    this.changes.deleted(message);
  }

  /**
   * A message whose claim this process took over after a restart (it was never answered): it
   * goes through intake like a new one, without counting against the member's rate again; the
   * bot-loop guard counts (or refuses) it as a live one (`TriggerDetector.detectRecovered`).
   */
  recover(message: Message): void {
    const inbound = toInboundMessage(message, this.options.botUserId);
    this.intake.enqueue(message.channelId, () => this.route(message, inbound, { recovered: true }));
  }

  /** A Retry press re-asks a member's message (retry-admission.ts decides whether it runs). */
  retry(trigger: Trigger, settings: ScopeSettings): Promise<RetryAdmission> {
    return admitRetry(trigger, settings, {
      ...this.options,
      databaseStep: this.databaseStep,
      submit: (admitted) => this.submit(admitted, settings, undefined),
    });
  }

  /** Submits a trigger to its channel's scheduler. */
  submit(trigger: Trigger, settings: ScopeSettings, replyTo: Message | undefined): boolean {
    const outcome = this.options.scheduler.submit(trigger.message.channelId, trigger, {
      policy: settings.queuePolicy,
      depth: settings.queueDepth,
    });
    this.options.logger.debug(
      { messageId: trigger.message.id, channelId: trigger.message.channelId, outcome },
      'message accepted',
    );
    if (outcome !== 'rejected') return true;
    this.options.settle?.([trigger.message.id]);
    if (replyTo !== undefined)
      void this.options.notices.tell(replyTo, { kind: 'queue_full' }, settings);
    return false;
  }

  /** What can be decided at once; the rest waits its turn in the channel's intake. */
  private receive(message: Message): void {
    const { botUserId } = this.options;
    if (!isSupportedChannel(message.channel)) {
      if (message.author.id !== botUserId && message.mentions.users.has(botUserId)) {
        void this.options.notices.tell(message, { kind: 'channel_unsupported' }, undefined);
      }
      return;
    }
    this.options.history.add(message.channelId, toHistoryMessage(message));
    if (message.author.id === botUserId) return;
    const inbound = toInboundMessage(message, botUserId);
    if (this.stopAhead(message, inbound)) return;
    const accepted = this.intake.enqueue(message.channelId, () => this.route(message, inbound));
    if (!accepted && addressedToBot(inbound)) {
      void this.options.notices.tell(message, { kind: 'queue_full' }, undefined);
    }
  }

  private async route(
    message: Message,
    inbound: InboundMessage,
    { recovered }: { recovered: boolean } = { recovered: false },
  ): Promise<void> {
    const scope = scopeOf(inbound);
    let settings: ScopeSettings | undefined;
    let reason: Trigger['reason'] | undefined;
    try {
      settings = await this.databaseStep(() => this.options.settings.get(scope.id));
      const isModerator = this.isModerator(message);
      const addressForms = botAddressForms(message, settings.triggerWords);
      if (await this.memberStops.stopOrWithdraw({ inbound, addressForms, isModerator })) return;

      const { detector } = this.options;
      await recallBotRun({ ...this.options, inbound, settings });
      reason = recovered
        ? detector.detectRecovered(inbound, settings)
        : detector.detect(inbound, settings);
      // A recovered message the loop guard refuses is settled: it will not be answered.
      if (reason === undefined && recovered) this.options.settle?.([message.id]);
      if (reason === undefined || !this.accepting) return;
      const limit = {
        // The message is the key: every process that hears it counts it once.
        key: message.id,
        scopeId: scope.id,
        memberId: inbound.authorId,
        perMinute: settings.memberTurnsPerMinute,
        now: this.options.clock.now(),
      };
      const verdict = recovered
        ? { allowed: true as const }
        : await this.databaseStep(() => this.options.rateLimiter.take(limit));
      if (!verdict.allowed) {
        const seconds = Math.ceil(verdict.retryAfterMs / 1000);
        if (await this.firstToRefuse(message.id)) {
          await this.options.notices.tell(
            message,
            { kind: 'member_rate_limited', seconds },
            settings,
          );
        }
        return;
      }
      const budget = settings.dailyTokenBudget;
      if (await this.databaseStep(() => this.options.dailyBudget.exhausted(scope.id, budget))) {
        if (recovered) this.options.settle?.([message.id]);
        if (recovered || (await this.firstToRefuse(message.id))) {
          await this.options.notices.tell(message, { kind: 'budget_exhausted' }, settings);
        }
        return;
      }
      // One attempt id for every retry of the held step: a claim whose commit's reply was lost
      // to an outage is still ours when the retry finds it (never dropped as "someone else's").
      const claim = {
        key: message.id,
        instanceId: this.options.instanceId,
        channelId: message.channelId,
        attempt: timeOrderedId(),
      };
      const claimed =
        recovered || (await this.databaseStep(() => claimMessage(this.options.db, claim)));
      if (!claimed) return;
      if (!this.knownScopes.has(scope.id)) {
        await this.databaseStep(() => ensureScope(this.options.db, scope.id, scope.kind));
        this.knownScopes.set(scope.id, true);
      }
      const trigger: Trigger = {
        message: inbound,
        reason,
        memberPermissions: message.member?.permissionsIn(message.channelId).bitfield.toString(),
        isModerator,
      };
      this.submit(trigger, settings, message);
    } catch (error) {
      // The database stayed out of reach (or another step failed): say so, never drop silently.
      this.options.logger.error({ err: error, messageId: message.id }, 'could not take a message');
      if (reason !== undefined || addressedToBot(inbound)) {
        await this.options.notices.tell(message, { kind: 'storage_trouble' }, settings);
      }
    }
  }

  /**
   * A stop for the live reply does not queue behind the channel's earlier messages still in
   * intake; it needs the scope's settings in memory (its address forms), else gateway order.
   */
  private stopAhead(message: Message, inbound: InboundMessage): boolean {
    if (this.intake.backlog(message.channelId) === 0) return false;
    const settings = this.options.settings.peek(scopeOf(inbound).id);
    if (settings === undefined) return false;
    return this.memberStops.stopLiveAtOnce({
      inbound,
      addressForms: botAddressForms(message, settings.triggerWords),
      isModerator: this.isModerator(message),
    });
  }

  /**
   * Every process on the database hears the message and reaches the same refusal: the one that
   * claims telling it tells the member, once.
   */
  private firstToRefuse(messageId: string): Promise<boolean> {
    return this.databaseStep(() =>
      claimMessage(this.options.db, {
        key: `refused:${messageId}`,
        instanceId: this.options.instanceId,
      }),
    );
  }

  private isModerator(message: Message): boolean {
    if (this.options.ownerIds.includes(message.author.id)) return true;
    const permissions = message.member?.permissionsIn(message.channelId);
    return permissions?.has(PermissionFlagsBits.ManageMessages) ?? false;
  }
}

/** Addressed to the bot whatever the scope's settings say: a mention, a reply to it, a DM. */
function addressedToBot(inbound: InboundMessage): boolean {
  return inbound.mentionsBot || inbound.repliesToBot || inbound.isDM;
}
