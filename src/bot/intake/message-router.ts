import type { GuildMember, Message, PartialMessage } from 'discord.js';
import { DEFAULT_CACHE_LIMITS, type CacheLimits } from '../../core/cache-limits.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import {
  claimMessage,
  RELEASED_CLAIM,
  releaseClaims,
  reopenClaim,
} from '../../db/claim-repository.ts';
import type { Database } from '../../db/database.ts';
import { ensureScope } from '../../db/scope-settings-repository.ts';
import type { StopAddressee } from '../../stream/stop/stop-phrases.ts';
import type { StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { Character } from '../../core/character.ts';
import type { CharacterMessages } from '../cast/character-messages.ts';
import type { SceneCache } from '../cast/scene-cache.ts';
import {
  characterVoice,
  isSupportedChannel,
  scopeOf,
  toHistoryMessage,
  toInboundMessage,
  type InboundMessage,
} from '../client/inbound-message.ts';
import type { ChannelHistory } from '../context/channel-history.ts';
import type { MemberNotices } from '../delivery/member-notices.ts';
import { resolveLocale } from '../i18n/locale.ts';
import { dailyLimitsOf, type DailyBudget } from '../limits/daily-budget.ts';
import { budgetRefusal } from './budget-refusal.ts';
import type { MemberRateLimiter } from '../limits/member-rate-limiter.ts';
import type { ChannelSettingsCache, ScopeSettingsCache } from '../settings/settings-cache.ts';
import { MemberStops, type MemberStopsOptions } from '../stops/member-stops.ts';
import {
  placeOf,
  authorMember,
  standingOf,
  type AcceptedMessage,
  type MemberStanding,
  type TurnFacts,
} from './accepted-message.ts';
import { botAddressForms } from './bot-address-forms.ts';
import { addressedCharacters } from './character-addressing.ts';
import type { CharacterSpeakers } from './character-speakers.ts';
import { recallBotRun } from './bot-run-history.ts';
import type { AnsweredInPassing } from './answered-in-passing.ts';
import { ChannelIntake } from './channel-intake.ts';
import { MessageChanges } from './message-changes.ts';
import type { DatabaseStep } from './outage-hold.ts';
import { admitRetry, type RetryAdmission } from './retry.ts';
import type { TriggerDetector, TriggerReason } from './trigger-detector.ts';
import type { TurnStartPrefetch } from '../context/turn-start-prefetch.ts';
import type { TurnQueue } from './turn-queue.ts';
import { applyChannelOverrides } from '../../core/channel-settings.ts';

/** The bot's characters at intake: who is on stage, who a message addresses, who speaks. */
export interface IntakeCast {
  scenes: SceneCache;
  messages: CharacterMessages;
  speakers: CharacterSpeakers;
  /** Character turns one member message may set off (its scene then ends). */
  turnLimit: number;
}

/** Who is on a channel's stage, and whom of them a message addresses (in answering order). */
interface Casting {
  stage: readonly Character[];
  addressed: readonly Character[];
}

const NO_CASTING: Casting = { stage: [], addressed: [] };

/** Messages of one channel waiting for intake at most (a burst beyond it is refused, and told). */
const INTAKE_BACKLOG_PER_CHANNEL = 500;

export interface MessageRouterOptions {
  db: Database;
  settings: ScopeSettingsCache;
  channelSettings: ChannelSettingsCache;
  history: ChannelHistory;
  detector: TriggerDetector;
  stops: StopRegistry;
  /** Stops heard here for a reply another process streams (several processes, one database). */
  remoteStops?: MemberStopsOptions<AcceptedMessage>['remoteStops'];
  queue: TurnQueue<AcceptedMessage>;
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
  /** Bounds the scopes remembered as existing (default DEFAULT_CACHE_LIMITS). */
  caches?: CacheLimits | undefined;
  /** Messages an earlier reply answered in passing: settled, never answered or handed back. */
  inPassing?: AnsweredInPassing;
  /** The characters; without them the bot only ever speaks as itself. */
  cast?: IntakeCast | undefined;
  /** Turn start reads begun beside the rate limit and the claim (the turns take them). */
  prefetch?: TurnStartPrefetch | undefined;
}

/** How a message reached intake: live from the gateway, or taken over after a restart. */
type Origin = 'live' | 'recovered';

/** A message on its way through intake, with what was decided about it so far. */
interface Routed {
  message: Message;
  inbound: InboundMessage;
  scope: TurnFacts['scope'];
  settings: ScopeSettings;
  origin: Origin;
}

/**
 * Intake, the first stage of a member's message: channel check, history window, natural stop,
 * trigger, member rate limit and daily budget, the multi-process claim, the turn's facts, then
 * the channel's queue — in gateway order per channel (ChannelIntake). A message that does not
 * trigger costs no database access (settings are cached). Every message that triggers the bot
 * ends up answered, refused with a reason (rate limit, budget, queue full, storage trouble) or
 * stopped.
 */
/**
 * Message ids judged lately, so one heard twice — from the gateway and from a session's backfill
 * that read the channel as it arrived, or replayed by a resume — is judged once: the bot-loop
 * guard's count depends on the order messages are judged in, and a copy judged after a newer
 * person's message would find the run reset.
 */
const HEARD_MESSAGES_KEPT = 10_000;

export class MessageRouter {
  private readonly options: MessageRouterOptions;
  private readonly knownScopes: LruMap<string, true>;
  private readonly heard = new LruMap<string, true>(HEARD_MESSAGES_KEPT);
  private readonly intake: ChannelIntake;
  private readonly databaseStep: DatabaseStep;
  private readonly memberStops: MemberStops<AcceptedMessage>;
  private readonly changes: MessageChanges;
  private accepting = true;

  constructor(options: MessageRouterOptions) {
    this.options = options;
    this.knownScopes = new LruMap((options.caches ?? DEFAULT_CACHE_LIMITS).scopes);
    this.databaseStep = options.databaseStep ?? ((step) => step());
    this.memberStops = new MemberStops(options);
    this.changes = new MessageChanges(options);
    this.intake = new ChannelIntake({
      maxBacklog: INTAKE_BACKLOG_PER_CHANNEL,
      onError: (error) => options.logger.error({ err: error }, 'could not handle a message'),
    });
  }

  /**
   * Stops taking new triggers (shutdown); stops and history still work. A trigger that still
   * arrives (the gateway delivers until the client is destroyed) is claimed and handed back at
   * once: the next start, or another process, answers it.
   */
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
    this.intake.enqueue(message.channelId, () => this.route(message, inbound, 'recovered'));
  }

  /**
   * A Retry press re-asks a member's message: the same rate limit and budget as the message had
   * (retry.ts), the same facts step, then the channel's queue.
   */
  async retry(original: Message, author: MemberStanding): Promise<RetryAdmission> {
    const inbound = toInboundMessage(original, this.options.botUserId);
    const scope = scopeOf(inbound);
    const settings = await this.databaseStep(() => this.options.settings.get(scope.id));
    return admitRetry(inbound, settings, {
      ...this.options,
      databaseStep: this.databaseStep,
      submit: async () => {
        const routed = { message: original, inbound, scope, settings, origin: 'live' as const };
        const casting = await this.casting(routed);
        const accepted = await this.accept(routed, { reason: 'retry', author, casting });
        if (accepted === undefined) return false;
        // Owed again: a shutdown hands it back, a crash leaves it for recovery.
        const { db, instanceId } = this.options;
        const claim = { key: original.id, instanceId, channelId: original.channelId };
        await this.databaseStep(() => reopenClaim(db, claim));
        return this.submit(accepted, undefined);
      },
    });
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
    if (this.heard.has(message.id)) return;
    this.heard.set(message.id, true);
    this.options.history.add(message.channelId, toHistoryMessage(message));
    // The bot's own words, as itself or as one of its characters: in the history, never a trigger.
    if (message.author.id === botUserId || characterVoice(message) !== undefined) return;
    const inbound = toInboundMessage(message, botUserId);
    if (this.stopAhead(message, inbound)) return;
    // Read now: discord.js keeps only the members heard last, and intake may wait its turn.
    const member = message.member;
    const accepted = this.intake.enqueue(message.channelId, () =>
      this.route(message, inbound, 'live', member ?? undefined),
    );
    if (!accepted && addressedToBot(inbound)) {
      void this.options.notices.tell(message, { kind: 'queue_full' }, undefined);
    }
  }

  /** The steps of intake, in order; any of them may end the message's way here. */
  private async route(
    message: Message,
    inbound: InboundMessage,
    origin: Origin,
    heardMember?: GuildMember | null,
  ): Promise<void> {
    const scope = scopeOf(inbound);
    let routed: Routed | undefined;
    let reason: TriggerReason | undefined;
    let claimed = false;
    let submitted = false;
    try {
      const settings = await this.databaseStep(() => this.options.settings.get(scope.id));
      routed = { message, inbound, scope, settings, origin };
      const member = heardMember ?? (await authorMember(message));
      const author = standingOf(message, { ownerIds: this.options.ownerIds, member });
      if (await this.stopOrWithdraw(routed, author)) return;
      const detected = await this.detect(routed);
      const casting = await this.casting(routed);
      reason = detected ?? (casting.addressed.length > 0 ? 'character' : undefined);
      if (reason === undefined) return;
      if (this.answeredInPassing(message)) return;
      if (!this.accepting) return await this.handBack(routed);
      this.prefetchStart(routed, casting);
      if (!(await this.withinBudget(routed))) return;
      if (!(await this.takeTurn(routed))) return;
      claimed = true;
      const accepted = await this.accept(routed, { reason, author, casting });
      submitted = accepted !== undefined && this.submit(accepted, message);
    } catch (error) {
      // The database stayed out of reach (or another step failed): say so, never drop silently.
      this.options.logger.error({ err: error, messageId: message.id }, 'could not take a message');
      if (reason !== undefined || addressedToBot(inbound)) {
        // Claimed, then told: nothing is owed, or a restart would answer it after the notice.
        if (claimed) this.options.settle?.([message.id]);
        await this.options.notices.tell(message, { kind: 'storage_trouble' }, routed?.settings);
      }
    } finally {
      if (!submitted) this.options.prefetch?.drop(message.id);
    }
  }

  /**
   * Begins the turn's start read now, beside the rate limit and the claim, not after them
   * (context/turn-start-prefetch.ts): for a live message in a channel with no turn live or
   * waiting, from a member this process is not refusing right now (a member who keeps going
   * while refused costs no read).
   */
  private prefetchStart(routed: Routed, casting: Casting): void {
    const { prefetch, queue, rateLimiter, clock } = this.options;
    const { inbound, settings, origin } = routed;
    if (prefetch === undefined || origin !== 'live' || queue.isBusy(inbound.channelId)) return;
    if (rateLimiter.refusing(settings.scopeId, inbound.authorId, clock.now())) return;
    prefetch.begin(inbound.id, {
      channelId: inbound.channelId,
      scopeId: settings.scopeId,
      authorId: inbound.authorId,
      characterId: casting.addressed[0]?.id,
    });
  }

  /** A reply delivered whole already answered it (owed from before a restart): settled here. */
  private answeredInPassing(message: Message): boolean {
    const { inPassing } = this.options;
    if (inPassing?.answered(message.id) !== true) return false;
    inPassing.settle(message.channelId, [message.id]);
    this.options.logger.info(
      { messageId: message.id, channelId: message.channelId },
      'message already answered in passing by an earlier reply: not answered again',
    );
    return true;
  }

  /**
   * A trigger heard while shutting down: claimed for no process (or, recovered, released), so
   * the next start or another process answers it — one process claims it either way.
   */
  private async handBack(routed: Routed): Promise<void> {
    const { db, instanceId, logger } = this.options;
    const { message } = routed;
    if (routed.origin === 'recovered') {
      await this.databaseStep(() => releaseClaims(db, [message.id], instanceId));
    } else {
      const claim = { key: message.id, instanceId: RELEASED_CLAIM, channelId: message.channelId };
      if (!(await this.databaseStep(() => claimMessage(db, claim)))) return;
    }
    logger.info({ messageId: message.id, channelId: message.channelId }, 'message handed back');
  }

  /** A member's stop for the reply answering them, or their "never mind" to what still waits. */
  private stopOrWithdraw(routed: Routed, author: MemberStanding): Promise<boolean> {
    return this.memberStops.stopOrWithdraw({
      inbound: routed.inbound,
      addressForms: botAddressForms(routed.message, routed.settings.triggerWords),
      addressees: this.onStage(routed.inbound.channelId),
      isModerator: author.isModerator,
    });
  }

  /**
   * Who is on the channel's stage, as a stop may name them ("Alice, stop"): from the scene
   * cache only (a channel with a scene turn live or waiting has its scene there).
   */
  private onStage(channelId: string): StopAddressee[] {
    const scene = this.options.cast?.scenes.peek(channelId);
    return (scene?.characters ?? []).map((character) => ({
      id: character.id,
      names: [character.name],
    }));
  }

  /** Why the bot answers the message, if it does (mention, reply, DM, trigger word, …). */
  private async detect(routed: Routed): Promise<TriggerReason | undefined> {
    const { detector } = this.options;
    const { inbound, settings } = routed;
    await recallBotRun({ ...this.options, inbound, settings });
    if (routed.origin === 'live') return detector.detect(inbound, settings);
    const reason = detector.detectRecovered(inbound, settings);
    // A recovered message the loop guard refuses is settled: it will not be answered.
    if (reason === undefined) this.options.settle?.([inbound.id]);
    return reason;
  }

  /**
   * Who is on the channel's stage and whom the message addresses: by replying to a character's
   * message, by name in its opening, by a trigger word. Members only (another bot's message
   * stays with the loop guard); in a DM, the member's own characters put on its stage. The
   * scene is cached like the settings; a reply's character is read back (remembered, else one
   * read) — a reply to the bot's own message too: where no webhook carries a character (a DM),
   * the bot posts its lines.
   */
  private async casting(routed: Routed): Promise<Casting> {
    const { cast } = this.options;
    const { inbound } = routed;
    if (cast === undefined || inbound.authorIsBot) return NO_CASTING;
    const scene = await this.databaseStep(() => cast.scenes.get(inbound.channelId));
    if (scene.characters.length === 0) return NO_CASTING;
    const repliedTo = inbound.replyToMessageId;
    const repliedCharacterId =
      repliedTo === undefined
        ? undefined
        : await this.databaseStep(() => cast.messages.characterOf(repliedTo));
    const addressed = addressedCharacters({
      content: inbound.content,
      scene: scene.characters,
      repliedCharacterId,
    });
    return { stage: scene.characters, addressed };
  }

  /**
   * The scope's daily budget (in memory, read from the database at most once a minute). A
   * refusal is told once, by the process that claims telling it (every process hears the
   * message and reaches the same verdict). Checked before the member's rate: a turn refused
   * for the budget does not count against the member's minute.
   */
  private async withinBudget(routed: Routed): Promise<boolean> {
    const { message, inbound, scope, settings, origin } = routed;
    const spent = await this.databaseStep(() =>
      this.options.dailyBudget.refusal(scope.id, dailyLimitsOf(settings), inbound.authorId),
    );
    if (spent === undefined) return true;
    if (origin === 'recovered') this.options.settle?.([message.id]);
    if (origin === 'recovered' || (await this.firstToRefuse(message.id))) {
      const refusal = budgetRefusal(spent, this.options.clock.now());
      await this.options.notices.tell(message, refusal, settings);
    }
    return false;
  }

  /**
   * The member's rate, then the claim — one statement when the database decides the rate.
   * The claim: one process answers a message, and the claim is the ledger of what is owed. One
   * attempt id for every retry of the held step: a claim whose commit's reply was lost to an
   * outage is still ours when the retry finds it (never dropped as "someone else's"). A
   * recovered message's claim was already taken over, and its rate counted when it was heard.
   */
  private async takeTurn(routed: Routed): Promise<boolean> {
    const { message, inbound, scope, settings, origin } = routed;
    if (origin === 'recovered') return true;
    const claim = {
      key: message.id,
      instanceId: this.options.instanceId,
      channelId: message.channelId,
      attempt: timeOrderedId(),
    };
    const verdict = await this.databaseStep(() =>
      this.options.rateLimiter.take({
        // The message is the key: every process that hears it counts it once.
        key: message.id,
        scopeId: scope.id,
        memberId: inbound.authorId,
        perMinute: settings.memberTurnsPerMinute,
        now: this.options.clock.now(),
        claim,
      }),
    );
    if (verdict.allowed) {
      const claimed =
        verdict.claimed ?? (await this.databaseStep(() => claimMessage(this.options.db, claim)));
      // Another process heard it too and answers it: the processes share the messages.
      if (!claimed) this.options.prefetch?.lostClaim();
      return claimed;
    }
    if (await this.firstToRefuse(message.id)) {
      const seconds = Math.ceil(verdict.retryAfterMs / 1000);
      await this.options.notices.tell(message, { kind: 'member_rate_limited', seconds }, settings);
    }
    return false;
  }

  /**
   * The turn's facts, decided here once: the place it is answered in, the settings in effect
   * there (the channel's own persona and humanizer merged over the scope's), the locale, the
   * author's standing, the id its user turn is stored under. Undefined (and the claim settled)
   * when the bot cannot post in the channel.
   */
  private async accept(
    routed: Routed,
    decided: { reason: AcceptedMessage['reason']; author: MemberStanding; casting: Casting },
  ): Promise<AcceptedMessage | undefined> {
    const { message, inbound, scope } = routed;
    const place = placeOf(message.channel);
    if (place === undefined) {
      this.options.logger.info({ channelId: message.channelId }, 'cannot post in this channel');
      this.options.settle?.([message.id]);
      return undefined;
    }
    if (!this.knownScopes.has(scope.id)) {
      await this.databaseStep(() => ensureScope(this.options.db, scope.id, scope.kind));
      this.knownScopes.set(scope.id, true);
    }
    const overrides = await this.databaseStep(() =>
      this.options.channelSettings.get(message.channelId),
    );
    const settings = applyChannelOverrides(routed.settings, overrides);
    const locale = resolveLocale(settings.language, place.guildLocale);
    const { casting, ...standing } = decided;
    return {
      message: inbound,
      ...standing,
      recordId: timeOrderedId(),
      facts: this.castFacts({ scope, place, settings, locale }, casting, inbound.id),
    };
  }

  /**
   * The facts as the first character addressed speaks them, answering the member message
   * `triggerMessageId`; the bot's own when none is addressed.
   */
  private castFacts(facts: TurnFacts, casting: Casting, triggerMessageId: string): TurnFacts {
    const { cast } = this.options;
    const [first, ...waiting] = casting.addressed;
    if (cast === undefined || first === undefined) return facts;
    return cast.speakers.factsFor(
      facts,
      first,
      {
        stage: casting.stage,
        waiting,
        turnsLeft: cast.turnLimit,
        spoken: [],
        silenced: new Set(),
      },
      triggerMessageId,
    );
  }

  /** Hands an accepted message to its channel's queue; a full queue is told (once). */
  private submit(accepted: AcceptedMessage, replyTo: Message | undefined): boolean {
    const { message, facts } = accepted;
    const outcome = this.options.queue.submit(message.channelId, accepted, {
      policy: facts.settings.queuePolicy,
      depth: facts.settings.queueDepth,
    });
    this.options.logger.debug(
      { messageId: message.id, channelId: message.channelId, outcome },
      'message accepted',
    );
    if (outcome !== 'rejected') return true;
    if (!this.accepting) {
      // Refused because shutdown closed the queue meanwhile: handed back, not refused.
      const { db, instanceId, logger } = this.options;
      void releaseClaims(db, [message.id], instanceId).then(
        () => logger.info({ messageId: message.id }, 'message handed back'),
        (error: unknown) => logger.warn({ err: error }, 'could not hand a message back'),
      );
      return false;
    }
    this.options.settle?.([message.id]);
    if (replyTo !== undefined) {
      void this.options.notices.tell(replyTo, { kind: 'queue_full' }, facts.settings);
    }
    return false;
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
      addressees: this.onStage(inbound.channelId),
      isModerator: standingOf(message, this.options).isModerator,
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
}

/** Addressed to the bot whatever the scope's settings say: a mention, a reply to it, a DM. */
function addressedToBot(inbound: InboundMessage): boolean {
  return inbound.mentionsBot || inbound.repliesToBot || inbound.isDM;
}
