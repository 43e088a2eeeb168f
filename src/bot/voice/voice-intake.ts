import {
  PermissionFlagsBits,
  SnowflakeUtil,
  type GuildMember,
  type VoiceBasedChannel,
} from 'discord.js';
import { applyChannelOverrides } from '../../core/channel-settings.ts';
import type { Clock } from '../../core/clock.ts';
import { LruMap } from '../../core/lru-map.ts';
import type { Logger } from '../../core/logger.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import { claimMessage } from '../../db/claim-repository.ts';
import type { Database } from '../../db/database.ts';
import { ensureScope } from '../../db/scope-settings-repository.ts';
import type { StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { InboundMessage } from '../client/inbound-message.ts';
import type { ChannelHistory } from '../context/channel-history.ts';
import type { MemberNotices, NoticeSubject } from '../delivery/member-notices.ts';
import { resolveLocale } from '../i18n/locale.ts';
import { placeOf, type AcceptedMessage, type MemberStanding } from '../intake/accepted-message.ts';
import { budgetRefusal } from '../intake/budget-refusal.ts';
import type { LiveVoice } from '../intake/live-voice.ts';
import type { DatabaseStep } from '../intake/outage-hold.ts';
import type { TurnQueue } from '../intake/turn-queue.ts';
import { dailyLimitsOf, type DailyBudget } from '../limits/daily-budget.ts';
import type { MemberRateLimiter } from '../limits/member-rate-limiter.ts';
import type { ChannelSettingsCache, ScopeSettingsCache } from '../settings/settings-cache.ts';

/** What a member said in the bot's voice channel, as text. */
export interface SpokenRequest {
  channel: VoiceBasedChannel;
  member: GuildMember;
  transcript: string;
  /** When they stopped speaking. */
  spokeAt: number;
}

export interface VoiceIntakeOptions {
  db: Database;
  settings: ScopeSettingsCache;
  channelSettings: ChannelSettingsCache;
  history: ChannelHistory;
  stops: StopRegistry;
  queue: TurnQueue<AcceptedMessage>;
  rateLimiter: MemberRateLimiter;
  dailyBudget: DailyBudget;
  notices: MemberNotices;
  databaseStep: DatabaseStep;
  settle(messageIds: readonly string[]): void;
  clock: Clock;
  logger: Logger;
  instanceId: string;
  ownerIds: readonly string[];
}

/**
 * Intake for speech: what a member says in the bot's voice channel takes the steps a message
 * takes (bot/intake/message-router.ts) — a stop phrase stops the reply answering them (or any,
 * for a moderator); otherwise their rate limit, the daily budgets, the claim, and the turn's
 * facts decided once — then the voice channel's turn queue. It is addressed to the bot by being
 * said in its call. The utterance gets a snowflake id of its own (it is no Discord message):
 * its user turn, claim and place in the channel's window are kept under it.
 */
/** Guilds whose scope row is known to exist (usage rows refer to it). */
const KNOWN_SCOPES = 10_000;

export class VoiceIntake {
  readonly #options: VoiceIntakeOptions;
  readonly #knownScopes = new LruMap<string, true>(KNOWN_SCOPES);

  constructor(options: VoiceIntakeOptions) {
    this.#options = options;
  }

  /** The guild's scope exists in the database (before its usage is counted or a turn recorded). */
  async scopeReady(guildId: string): Promise<void> {
    if (this.#knownScopes.has(guildId)) return;
    await this.#options.databaseStep(() => ensureScope(this.#options.db, guildId, 'guild'));
    this.#knownScopes.set(guildId, true);
  }

  /** Takes one utterance; resolves once it is queued, stopped a reply, or was refused (told). */
  async hear(request: SpokenRequest, voice: LiveVoice): Promise<void> {
    const inbound = spokenInbound(request);
    const scope = { id: request.channel.guild.id, kind: 'guild' as const };
    const author = this.standing(request.member, request.channel);
    if (this.#stopped(request, inbound, author)) return;
    const { databaseStep } = this.#options;
    const settings = await databaseStep(() => this.#options.settings.get(scope.id));
    if (!(await this.#admit(request, inbound, settings))) return;
    const claim = {
      key: inbound.id,
      instanceId: this.#options.instanceId,
      channelId: inbound.channelId,
      attempt: timeOrderedId(),
    };
    if (!(await databaseStep(() => claimMessage(this.#options.db, claim)))) return;
    const accepted = await this.#accept(request, { inbound, author, settings, voice });
    if (accepted === undefined) return;
    this.#options.history.add(inbound.channelId, { ...inbound, mentionsBot: true });
    this.#submit(request, accepted);
  }

  /** What a member may do in the voice channel: a bot owner or Manage Messages moderates. */
  standing(member: GuildMember, channel: VoiceBasedChannel): MemberStanding {
    const permissions = member.permissionsIn(channel);
    return {
      permissions: permissions.bitfield.toString(),
      isModerator:
        this.#options.ownerIds.includes(member.id) ||
        permissions.has(PermissionFlagsBits.ManageMessages),
    };
  }

  /** A stop phrase ("stop", "wait", 「止めて」) is never a question, whether it stopped anything. */
  #stopped(request: SpokenRequest, inbound: InboundMessage, author: MemberStanding): boolean {
    const { stops, logger } = this.#options;
    const me = request.channel.guild.members.me;
    const addressForms = [me?.displayName, me?.user.username].filter(
      (name): name is string => name !== undefined,
    );
    if (!stops.isStop({ channelId: inbound.channelId, content: inbound.content, addressForms })) {
      return false;
    }
    const decision = stops.consider({
      channelId: inbound.channelId,
      messageId: inbound.id,
      authorId: inbound.authorId,
      authorName: inbound.authorName,
      content: inbound.content,
      authorIsModerator: author.isModerator,
      addressForms,
    });
    logger.info(
      { channelId: inbound.channelId, stopped: decision.stopped },
      decision.stopped ? 'stopped by a member speaking' : 'a spoken stop found nothing to stop',
    );
    return true;
  }

  /** The member's rate and the daily budgets; a refusal is told in the text chat. */
  async #admit(
    request: SpokenRequest,
    inbound: InboundMessage,
    settings: ScopeSettings,
  ): Promise<boolean> {
    const { databaseStep, clock, notices } = this.#options;
    const subject = noticeSubject(request, inbound.id);
    const verdict = await databaseStep(() =>
      this.#options.rateLimiter.take({
        key: inbound.id,
        scopeId: request.channel.guild.id,
        memberId: inbound.authorId,
        perMinute: settings.memberTurnsPerMinute,
        now: clock.now(),
      }),
    );
    if (!verdict.allowed) {
      const seconds = Math.ceil(verdict.retryAfterMs / 1000);
      await notices.tell(subject, { kind: 'member_rate_limited', seconds }, settings);
      return false;
    }
    const spent = await databaseStep(() =>
      this.#options.dailyBudget.refusal(
        request.channel.guild.id,
        dailyLimitsOf(settings),
        inbound.authorId,
      ),
    );
    if (spent === undefined) return true;
    await notices.tell(subject, budgetRefusal(spent, clock.now()), settings);
    return false;
  }

  async #accept(
    request: SpokenRequest,
    heard: {
      inbound: InboundMessage;
      author: MemberStanding;
      settings: ScopeSettings;
      voice: LiveVoice;
    },
  ): Promise<AcceptedMessage | undefined> {
    const { inbound, settings: scopeSettings } = heard;
    const { databaseStep } = this.#options;
    const place = placeOf(request.channel);
    const scopeId = request.channel.guild.id;
    if (place === undefined) {
      this.#options.settle([inbound.id]);
      return undefined;
    }
    await this.scopeReady(scopeId);
    const overrides = await databaseStep(() =>
      this.#options.channelSettings.get(inbound.channelId),
    );
    const settings = applyChannelOverrides(scopeSettings, overrides);
    return {
      message: inbound,
      reason: 'voice',
      author: heard.author,
      recordId: timeOrderedId(),
      facts: {
        scope: { id: scopeId, kind: 'guild' },
        place,
        settings,
        locale: resolveLocale(settings.language, place.guildLocale),
        voice: heard.voice,
      },
    };
  }

  #submit(request: SpokenRequest, accepted: AcceptedMessage): void {
    const { message, facts } = accepted;
    const outcome = this.#options.queue.submit(message.channelId, accepted, {
      policy: facts.settings.queuePolicy,
      depth: facts.settings.queueDepth,
    });
    this.#options.logger.info(
      { messageId: message.id, channelId: message.channelId, outcome },
      'spoken request accepted',
    );
    if (outcome !== 'rejected') return;
    this.#options.settle([message.id]);
    void this.#options.notices.tell(
      noticeSubject(request, message.id),
      { kind: 'queue_full' },
      facts.settings,
    );
  }
}

/** The utterance as the turn stage reads a message: its transcript is its text. */
function spokenInbound(request: SpokenRequest): InboundMessage {
  return {
    id: SnowflakeUtil.generate({ timestamp: request.spokeAt }).toString(),
    channelId: request.channel.id,
    guildId: request.channel.guild.id,
    authorId: request.member.id,
    authorName: request.member.displayName,
    authorIsBot: false,
    content: request.transcript,
    createdAt: request.spokeAt,
    isDM: false,
    mentionsBot: true,
    repliesToBot: false,
    replyToMessageId: undefined,
    attachments: [],
  };
}

/** A notice about an utterance: posted in the voice channel's text chat. */
function noticeSubject(request: SpokenRequest, id: string): NoticeSubject {
  return {
    id,
    author: request.member.user,
    guild: request.channel.guild,
    channel: request.channel,
  };
}
