import { PermissionFlagsBits, type Message, type PartialMessage } from 'discord.js';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { LruMap } from '../core/lru-map.ts';
import type { ScopeSettings } from '../core/settings.ts';
import { timeOrderedId } from '../core/time-ordered-id.ts';
import type { Database } from '../db/database.ts';
import { claimMessage } from '../db/claim-repository.ts';
import { ensureScope } from '../db/scope-settings-repository.ts';
import { forgetUserMessage, reviseUserMessage } from '../db/turn-repository.ts';
import type { StopCandidate, StopRegistry } from '../stream/stop-registry.ts';
import { botAddressForms } from './bot-address-forms.ts';
import type { CrossProcessStops } from './control/cross-process-stops.ts';
import type { ChannelHistory } from './channel-history.ts';
import { ChannelIntake } from './channel-intake.ts';
import type { ChannelTurnScheduler } from './channel-turn-scheduler.ts';
import type { DailyBudget } from './daily-budget.ts';
import type { InboundMessage } from './inbound-message.ts';
import type { MemberNotices } from './member-notices.ts';
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

/** Messages of one channel waiting for intake at most (a burst beyond it is refused, and told). */
const INTAKE_BACKLOG_PER_CHANNEL = 500;
/** Scopes known to exist, remembered to skip their upsert. */
const KNOWN_SCOPES = 10_000;

/** What became of a Retry press: it runs, or why it cannot (told to the presser alone). */
export type RetryAdmission =
  | { kind: 'started' }
  | { kind: 'rate_limited'; seconds: number }
  | { kind: 'budget' }
  | { kind: 'busy' };

/** Runs a database step, retrying it through a short outage; throws when the outage lasts. */
export type DatabaseStep = <T>(step: () => Promise<T>) => Promise<T>;

export interface MessageRouterOptions {
  db: Database;
  settings: SettingsCache;
  history: ChannelHistory;
  detector: TriggerDetector;
  stops: StopRegistry;
  /** Stops heard here for a reply another process streams (several processes, one database). */
  remoteStops?: Pick<CrossProcessStops, 'considerElsewhere' | 'shared' | 'stoppedFor'>;
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
  private accepting = true;

  constructor(options: MessageRouterOptions) {
    this.options = options;
    this.databaseStep = options.databaseStep ?? ((step) => step());
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
    if (message.partial || message.content === null) return;
    // Discord also sends updates when a link's embed resolves: nothing to store then.
    if (!old.partial && old.content === message.content) return;
    const content = message.cleanContent;
    this.options.history.update(message.channelId, { id: message.id, content });
    if (message.author?.id !== this.options.botUserId) {
      // The same readable form a new message is stored in (mentions as @names, never raw ids).
      void this.storeMessageChange(message.id, () =>
        reviseUserMessage(this.options.db, message.id, content),
      );
    }
  }

  onMessageDelete(message: Message | PartialMessage): void {
    this.options.history.remove(message.channelId, message.id);
    if (message.author?.id === this.options.botUserId) return;
    void this.storeMessageChange(message.id, () => forgetUserMessage(this.options.db, message.id));
  }

  /**
   * A message whose claim this process took over after a restart (it was never answered): it
   * goes through intake like a new one, without counting against the member's rate again.
   */
  recover(message: Message): void {
    const inbound = toInboundMessage(message, this.options.botUserId);
    this.intake.enqueue(message.channelId, () => this.route(message, inbound, { recovered: true }));
  }

  /**
   * A Retry press re-asks a member's message: it counts against the member's rate and the
   * scope's daily budget like the message did, and waits its turn in the channel's queue.
   */
  async retry(trigger: Trigger, settings: ScopeSettings): Promise<RetryAdmission> {
    const scopeId = scopeOf(trigger.message).id;
    const now = this.options.clock.now();
    const verdict = await this.databaseStep(() =>
      this.options.rateLimiter.take({
        // Only the process that claimed the press gets here: a key of its own is enough.
        key: `retry:${trigger.message.id}:${now}`,
        scopeId,
        memberId: trigger.message.authorId,
        perMinute: settings.memberTurnsPerMinute,
        now,
      }),
    );
    if (!verdict.allowed) {
      return { kind: 'rate_limited', seconds: Math.ceil(verdict.retryAfterMs / 1000) };
    }
    const budget = settings.dailyTokenBudget;
    if (await this.databaseStep(() => this.options.dailyBudget.exhausted(scopeId, budget))) {
      return { kind: 'budget' };
    }
    return this.submit(trigger, settings, undefined) ? { kind: 'started' } : { kind: 'busy' };
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
      void this.options.notices.tell(replyTo, 'note.queue_full', {}, settings);
    return false;
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

  /** What can be decided at once; the rest waits its turn in the channel's intake. */
  private receive(message: Message): void {
    const { botUserId } = this.options;
    if (!isSupportedChannel(message.channel)) {
      if (message.author.id !== botUserId && message.mentions.users.has(botUserId)) {
        void this.options.notices.tell(message, 'note.channel_unsupported', {}, undefined);
      }
      return;
    }
    this.options.history.add(message.channelId, toHistoryMessage(message));
    if (message.author.id === botUserId) return;
    const inbound = toInboundMessage(message, botUserId);
    if (this.stopAhead(message, inbound)) return;
    const accepted = this.intake.enqueue(message.channelId, () => this.route(message, inbound));
    if (!accepted && addressedToBot(inbound)) {
      void this.options.notices.tell(message, 'note.queue_full', {}, undefined);
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
      if (
        await this.stopOrWithdraw(
          inbound,
          botAddressForms(message, settings.triggerWords),
          isModerator,
        )
      )
        return;

      reason =
        this.options.detector.detect(inbound, settings) ?? (recovered ? 'mention' : undefined);
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
            'note.member_rate_limited',
            { seconds },
            settings,
          );
        }
        return;
      }
      const budget = settings.dailyTokenBudget;
      if (await this.databaseStep(() => this.options.dailyBudget.exhausted(scope.id, budget))) {
        if (recovered) this.options.settle?.([message.id]);
        if (recovered || (await this.firstToRefuse(message.id))) {
          await this.options.notices.tell(message, 'note.budget_exhausted', {}, settings);
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
        await this.options.notices.tell(message, 'note.storage_trouble', {}, settings);
      }
    }
  }

  /**
   * A stop for the live reply does not queue behind the channel's earlier messages while they
   * are still in intake — their database steps may be waiting out an outage, and the reply
   * would stream on meanwhile (or the stop reach the next reply instead). With the scope's
   * settings in memory it stops the reply at once; anything else keeps gateway order.
   */
  private stopAhead(message: Message, inbound: InboundMessage): boolean {
    const { stops, logger } = this.options;
    const channelId = message.channelId;
    if (this.intake.backlog(channelId) === 0 || stops.liveTurn(channelId) === undefined) {
      return false;
    }
    const settings = this.options.settings.peek(scopeOf(inbound).id);
    if (settings === undefined) return false;
    const candidate = stopCandidate(
      inbound,
      botAddressForms(message, settings.triggerWords),
      this.isModerator(message),
    );
    if (!stops.isStop(candidate)) return false;
    const decision = stops.consider(candidate);
    if (decision.stopped !== true) return false;
    logger.info({ channelId, turnId: decision.request.turnId }, 'stopped by a member');
    return true;
  }

  /**
   * A stop from a member stops the live turn that answers them (or any, for a moderator); what
   * they asked after it still waits and is answered. A member with no live turn to stop
   * withdraws instead their messages still waiting in the channel ("never mind"): they are not
   * answered. True when the message did either (it then triggers nothing else).
   */
  private async stopOrWithdraw(
    inbound: InboundMessage,
    addressForms: readonly string[],
    isModerator: boolean,
  ): Promise<boolean> {
    const { stops, remoteStops, scheduler, logger } = this.options;
    const channelId = inbound.channelId;
    const ownWaiting = (trigger: Trigger): boolean => trigger.message.authorId === inbound.authorId;
    const hasLive = stops.liveTurn(channelId) !== undefined;
    const elsewhere = remoteStops !== undefined && remoteStops.shared;
    if (!hasLive && !elsewhere && scheduler.waiting(channelId) === 0) return false;
    const candidate = stopCandidate(inbound, addressForms, isModerator);
    if (!stops.isStop(candidate)) return false;
    // The reply may be streamed by another process on this database: ask it to judge the stop.
    const decision = hasLive
      ? stops.consider(candidate)
      : await remoteStops?.considerElsewhere(candidate);
    if (decision?.stopped === true) {
      logger.info({ channelId, turnId: decision.request.turnId }, 'stopped by a member');
      return true;
    }
    // The same stop heard twice (relayed by another process, and here): one stop, no withdrawal.
    if (
      decision?.reason === 'already-stopping' &&
      (!hasLive || remoteStops?.stoppedFor(inbound.id) === true)
    )
      return true;
    const withdrawn = scheduler.withdraw(channelId, ownWaiting);
    if (withdrawn.length > 0) {
      this.options.settle?.(withdrawn.map((trigger) => trigger.message.id));
      logger.info({ channelId, withdrawn: withdrawn.length }, 'a member withdrew waiting messages');
    }
    return withdrawn.length > 0;
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

function stopCandidate(
  inbound: InboundMessage,
  addressForms: readonly string[],
  isModerator: boolean,
): StopCandidate {
  return {
    channelId: inbound.channelId,
    messageId: inbound.id,
    authorId: inbound.authorId,
    authorName: inbound.authorName,
    content: inbound.content,
    authorIsModerator: isModerator,
    addressForms,
  };
}

/** Addressed to the bot whatever the scope's settings say: a mention, a reply to it, a DM. */
function addressedToBot(inbound: InboundMessage): boolean {
  return inbound.mentionsBot || inbound.repliesToBot || inbound.isDM;
}
