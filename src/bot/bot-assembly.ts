import { SnowflakeUtil, type Client } from 'discord.js';
import { DEFAULT_CACHE_LIMITS, type CacheLimits } from '../core/cache-limits.ts';
import { LocalControlBus, type ControlBus } from '../core/control-bus.ts';
import { noMetrics, type BotMetrics } from '../core/metrics.ts';
import { timeOrderedId } from '../core/time-ordered-id.ts';
import { loadChannelOverrides } from '../db/channel-settings-repository.ts';
import { anySceneInUse, loadScene } from '../db/scene-repository.ts';
import {
  carryClaims,
  claimMessage,
  settleAnswered,
  settleClaims,
  uncarryClaims,
} from '../db/claim-repository.ts';
import { takeMemberTurn } from '../db/member-turn-repository.ts';
import { retryTransient } from '../db/retry-transient.ts';
import { loadScopeSettings } from '../db/scope-settings-repository.ts';
import { StopRegistry } from '../stream/stop/stop-registry.ts';
import { StreamOrchestrator } from '../stream/turn/stream-orchestrator.ts';
import { CharacterMessages } from './cast/character-messages.ts';
import { SceneCache } from './cast/scene-cache.ts';
import { webhookRestOf } from './client/discord-client.ts';
import { historyMessagesOf } from './client/gateway-tolerance.ts';
import { CommandCooldowns } from './commands/command-cooldowns.ts';
import { createCommands } from './commands/command-list.ts';
import { CommandRouter } from './commands/command-router.ts';
import type { CommandServices, SlashCommand } from './commands/slash-command.ts';
import { ChannelHistory } from './context/channel-history.ts';
import { UnrecordedReplies } from './context/unrecorded-replies.ts';
import { TurnStartPrefetch } from './context/turn-start-prefetch.ts';
import { readTurnStart } from './context/turn-context.ts';
import {
  DEFAULT_SUMMARY_CADENCE,
  RollingSummarizer,
} from './context/summary/rolling-summarizer.ts';
import { fetchDownload } from './context/trigger-attachments.ts';
import { CONTROL_TOPICS } from './control/control-messages.ts';
import { announcer, followOtherProcesses } from './control/control-subscriptions.ts';
import { ChannelWebhooks } from './delivery/channel-webhooks.ts';
import type { DeliveryPort } from './delivery/delivery-port.ts';
import { MemberNotices } from './delivery/member-notices.ts';
import { TypingAllowance } from './delivery/typing-allowance.ts';
import type { DiscordBotOptions } from './discord-bot-options.ts';
import { placeOf, type AcceptedMessage } from './intake/accepted-message.ts';
import { CharacterSpeakers } from './intake/character-speakers.ts';
import { MessageRouter, type IntakeCast } from './intake/message-router.ts';
import { OUTAGE_HOLD_MS, outageHold, type DatabaseStep } from './intake/outage-hold.ts';
import { TriggerDetector } from './intake/trigger-detector.ts';
import { DailyBudget } from './limits/daily-budget.ts';
import { MemberRateLimiter } from './limits/member-rate-limiter.ts';
import {
  channelSettingsCache,
  scopeSettingsCache,
  type ChannelSettingsCache,
  type ScopeSettingsCache,
} from './settings/settings-cache.ts';
import { CrossProcessStops, streamingElsewhere } from './stops/cross-process-stops.ts';
import { AnsweredInPassing } from './intake/answered-in-passing.ts';
import { ChannelLocks } from './turns/channel-locks.ts';
import { ChannelTurnScheduler } from './turns/channel-turn-scheduler.ts';
import { DatabaseTurnJournal } from './turns/database-turn-journal.ts';
import { tellOverdue } from './turns/overdue-messages.ts';
import { SceneGreetings } from './turns/scene-greeting.ts';
import { TurnRunner } from './turns/turn-runner.ts';
import { VoiceChannels } from './voice/voice-channels.ts';
import { VoiceIntake } from './voice/voice-intake.ts';

/**
 * A cached setting is re-read in the background after this: a backstop only, since another
 * process's change arrives over the control bus at once and a resumed bus drops every cached
 * setting. Read every 30 s, a busy shard's active servers cost PostgreSQL more transactions
 * than all their members' messages otherwise do.
 */
const SETTINGS_REFRESH_MS = 5 * 60_000;
/** A turn holding its channel longer than this is presumed stuck and its lock handed on. */
const CHANNEL_HOLD_TIMEOUT_MS = 15 * 60_000;
/** Character turns one member message may set off in a scene, unless the operator says otherwise. */
const DEFAULT_SCENE_TURN_LIMIT = 3;

/** Who the bot is on Discord: known once the client is ready. */
export interface BotIdentity {
  id: string;
  name: string;
  /** The application (its webhooks' messages name it). */
  applicationId: string;
}

/** What the bot's lifetime hands its parts: aborted at shutdown. */
export interface BotLifetime {
  /** Aborted when live turns must stop (after the shutdown grace). */
  shutdown: AbortSignal;
  /** Aborted when shutdown begins: intake stops waiting out a database outage. */
  intakeHold: AbortSignal;
}

/** The bot's parts, wired together. */
export interface BotParts {
  router: MessageRouter;
  scheduler: ChannelTurnScheduler<AcceptedMessage>;
  history: ChannelHistory;
  commands: SlashCommand[];
  commandRouter: CommandRouter;
  crossProcessStops: CrossProcessStops;
  settings: ScopeSettingsCache;
  /** The channels' managed webhooks (their rate-limit headers teach the write budgets). */
  webhooks: ChannelWebhooks;
  /** Intake's database steps, held through a short outage (a Retry press's claim too). */
  databaseStep: DatabaseStep;
  /** Messages a delivered reply answered in passing: settled at shutdown, not handed back. */
  inPassing: AnsweredInPassing;
  settle(messageIds: readonly string[]): void;
  /** The bot's voice calls, when voice channels are on (VOICE_CHANNELS). */
  voice: VoiceChannels | undefined;
  /** Stops following the other processes (the control bus subscriptions); leaves voice calls. */
  close(): void;
}

/** The state every stage shares: caches, budgets, the live turns and the control bus. */
interface SharedState {
  bus: ControlBus;
  metrics: BotMetrics;
  stops: StopRegistry;
  crossProcessStops: CrossProcessStops;
  settings: ScopeSettingsCache;
  channelSettings: ChannelSettingsCache;
  /** Who is on stage per channel. */
  scenes: SceneCache;
  dailyBudget: DailyBudget;
  history: ChannelHistory;
  /** The one write path to channels (its budgets learn from every REST response). */
  delivery: DeliveryPort;
  notices: MemberNotices;
  databaseStep: DatabaseStep;
  /** The members have seen what became of these messages: their claims are settled. */
  settle(messageIds: readonly string[]): void;
  /** Messages a delivered reply answered in passing (router, runner and shutdown share it). */
  inPassing: AnsweredInPassing;
}

/**
 * The one wiring of the bot, built once the client is ready (the bot's own user is known):
 * the shared state, then the turn path in the order a message flows — router → scheduler →
 * runner → orchestrator → delivery — built backwards so each part receives what it calls,
 * then the slash commands, then the subscriptions to the other processes.
 */
export function assembleBot(
  options: DiscordBotOptions,
  identity: BotIdentity,
  lifetime: BotLifetime,
): BotParts {
  const state = sharedState(options, lifetime);
  const cast = castParts(options, { identity, lifetime, scenes: state.scenes });
  const { router, scheduler, rateLimiter } = turnPath(options, state, {
    identity,
    lifetime,
    cast,
  });
  const voice = voiceChannels(options, state, { scheduler, rateLimiter });
  const commands = options.commands ?? createCommands();
  const commandRouter = new CommandRouter({
    commands,
    services: {
      ...options,
      ...state,
      tools: options.toolCatalog,
      stops: state.crossProcessStops,
      greet: greeter(options, { identity, lifetime, speakers: cast.speakers }),
      voice,
      charactersChanged: () => {
        state.scenes.clear();
        announcer({ bus: state.bus, logger: options.logger })(CONTROL_TOPICS.scene, {
          origin: options.instanceId,
        });
      },
    },
    cooldowns: new CommandCooldowns({ clock: options.clock }),
    claim: (interactionId) => {
      // One attempt id for every retry through an outage (see MessageRouter's claim).
      const claim = {
        key: `interaction:${interactionId}`,
        instanceId: options.instanceId,
        attempt: timeOrderedId(),
      };
      return state.databaseStep(() => claimMessage(options.db, claim));
    },
  });
  state.crossProcessStops.start();
  const unfollow = followOtherProcesses({ ...options, ...state });
  const unhear = followOwnWrites(options.delivery, state.history, identity);
  return {
    router,
    scheduler,
    commands,
    commandRouter,
    webhooks: cast.webhooks,
    ...state,
    voice,
    close: () => {
      unfollow();
      unhear();
      state.crossProcessStops.close();
      voice?.close();
    },
  };
}

function sharedState(options: DiscordBotOptions, lifetime: BotLifetime): SharedState {
  const { db, clock, logger, instanceId } = options;
  const caches = options.caches ?? DEFAULT_CACHE_LIMITS;
  const bus = options.bus ?? new LocalControlBus();
  const announce = announcer({ bus, logger });
  const stops = new StopRegistry();
  return {
    bus,
    metrics: options.metrics ?? noMetrics,
    stops,
    crossProcessStops: new CrossProcessStops({
      stops,
      bus,
      clock,
      logger,
      instanceId,
      streamingElsewhere: streamingElsewhere(options),
    }),
    settings: scopeSettingsCache({
      load: (scopeId) => loadScopeSettings(db, scopeId),
      clock,
      logger,
      refreshAfterMs: SETTINGS_REFRESH_MS,
      capacity: caches.scopes,
      announce: (change) => announce(CONTROL_TOPICS.settings, { origin: instanceId, ...change }),
    }),
    channelSettings: channelSettingsCache({
      load: (channelId) => loadChannelOverrides(db, channelId),
      clock,
      logger,
      refreshAfterMs: SETTINGS_REFRESH_MS,
      capacity: caches.channels,
      announce: (channelId) =>
        announce(CONTROL_TOPICS.channelSettings, { origin: instanceId, channelId }),
    }),
    scenes: new SceneCache({
      load: (channelId) => loadScene(db, channelId),
      anyInUse: () => anySceneInUse(db),
      clock,
      logger,
      refreshAfterMs: SETTINGS_REFRESH_MS,
      capacity: caches.channels,
      announce: (channelId) => announce(CONTROL_TOPICS.scene, { origin: instanceId, channelId }),
    }),
    dailyBudget: new DailyBudget({
      db,
      clock,
      signal: lifetime.shutdown,
      announce: (scopeId) => announce(CONTROL_TOPICS.usage, { origin: instanceId, scopeId }),
      maxScopes: caches.scopes,
    }),
    history: channelHistory({ ...options, caches }),
    delivery: options.delivery,
    notices: new MemberNotices({ clock, logger, delivery: options.delivery }),
    databaseStep: outageHold({ clock, logger, signal: lifetime.intakeHold }),
    settle: settleInBackground(options, lifetime.shutdown),
    inPassing: new AnsweredInPassing({
      persist: (answered) =>
        inBackground(
          options,
          lifetime.shutdown,
          'could not record messages answered in passing',
          () => settleAnswered(db, { ...answered, instanceId: options.instanceId }),
        ),
    }),
  };
}

/** A character's greeting in a channel it came on stage in (`/scene add`), in its voice. */
function greeter(
  options: DiscordBotOptions,
  parts: { identity: BotIdentity; lifetime: BotLifetime; speakers: CharacterSpeakers },
): NonNullable<CommandServices['greet']> {
  const greetings = new SceneGreetings({
    ...options,
    speakers: parts.speakers,
    botUserId: parts.identity.id,
    signal: parts.lifetime.shutdown,
  });
  return async ({ channelId, scopeId, character }) => {
    const channel = await options.client.channels.fetch(channelId).catch(() => null);
    const place = channel === null ? undefined : placeOf(channel);
    if (place === undefined) return 'failed';
    return greetings.greet({ place, scopeId, character });
  };
}

/** The characters' parts: the channels' webhooks, who posted what, who speaks a turn. */
function castParts(
  options: DiscordBotOptions,
  parts: { identity: BotIdentity; lifetime: BotLifetime; scenes: SceneCache },
): IntakeCast & { webhooks: ChannelWebhooks } {
  const { client, db, clock, logger } = options;
  const webhooks = new ChannelWebhooks({
    rest: client.rest,
    webhookRest: webhookRestOf(client),
    applicationId: parts.identity.applicationId,
    logger,
  });
  const messages = new CharacterMessages({ db, clock, logger, signal: parts.lifetime.shutdown });
  return {
    scenes: parts.scenes,
    messages,
    speakers: new CharacterSpeakers({ rest: client.rest, clock, webhooks, messages }),
    webhooks,
    turnLimit: options.sceneTurnLimit ?? DEFAULT_SCENE_TURN_LIMIT,
  };
}

/** The journal a turn is recorded in, and the orchestrator that streams it over that journal. */
function turnStream(
  options: DiscordBotOptions,
  { identity, lifetime }: { identity: BotIdentity; lifetime: BotLifetime },
): {
  unrecorded: UnrecordedReplies;
  journal: DatabaseTurnJournal;
  orchestrator: StreamOrchestrator;
} {
  // A reply members saw whose record failed is held here for the channel's next turn.
  const unrecorded = new UnrecordedReplies();
  const journal = new DatabaseTurnJournal({
    ...options,
    botUserId: identity.id,
    botName: identity.name,
    signal: lifetime.shutdown,
    unrecorded,
  });
  const orchestrator = new StreamOrchestrator({
    journal,
    clock: options.clock,
    random: options.random,
    logger: options.logger,
    options: options.streamOptions,
  });
  return { unrecorded, journal, orchestrator };
}

/**
 * The turn path, built from its end: the journal and the orchestrator (which delivers), the
 * runner that drives them, the scheduler that runs the runner per channel, and the router that
 * feeds the scheduler.
 */
function turnPath(
  options: DiscordBotOptions,
  state: SharedState,
  { identity, lifetime, cast }: { identity: BotIdentity; lifetime: BotLifetime; cast: IntakeCast },
): {
  router: MessageRouter;
  scheduler: ChannelTurnScheduler<AcceptedMessage>;
  rateLimiter: MemberRateLimiter;
} {
  const { db, clock, logger } = options;
  const { unrecorded, journal, orchestrator } = turnStream(options, { identity, lifetime });
  // Intake begins a turn's start read beside its rate-limit and claim round trips.
  const prefetch =
    options.embeddedDatabase === true
      ? undefined
      : new TurnStartPrefetch((key) => readTurnStart(db, key), clock);
  const summarizer = new RollingSummarizer({
    ...options,
    dailyBudget: state.dailyBudget,
    loadSettings: (scopeId) => state.settings.get(scopeId),
    ...DEFAULT_SUMMARY_CADENCE,
    ...options.summaryCadence,
    signal: lifetime.shutdown,
  });
  const runner = new TurnRunner({
    ...options,
    ...state,
    orchestrator,
    journal,
    unrecorded,
    prefetch,
    typing: new TypingAllowance(clock, { onSkipped: () => state.metrics.typingSkipped() }),
    botUserId: identity.id,
    download: options.download ?? fetchDownload,
    shutdownSignal: lifetime.shutdown,
    carrier: {
      carry: (carried) => carryClaims(db, { ...carried, instanceId: options.instanceId }),
      uncarry: (uncarried) => uncarryClaims(db, { ...uncarried, instanceId: options.instanceId }),
    },
    afterTurn: (turn) => summarizer.schedule(turn),
    scenes: {
      speakers: cast.speakers,
      // Behind the turn that ends now, in its channel's queue.
      submit: (next) => {
        const { settings } = next.facts;
        scheduler.submit(next.message.channelId, next, {
          policy: settings.queuePolicy,
          depth: settings.queueDepth,
        });
      },
    },
  });
  const scheduler = new ChannelTurnScheduler<AcceptedMessage>({
    locks: new ChannelLocks({ clock, holdTimeoutMs: CHANNEL_HOLD_TIMEOUT_MS }),
    logger,
    runTurn: (turn) => runner.run(turn),
    weigh: (accepted) => accepted.message.content.length,
    watchdog: {
      limitMs: options.messageWaitLimitMs,
      clock,
      onOverdue: tellOverdue({ ...options, settle: (messageIds) => state.settle(messageIds) }),
    },
  });
  state.metrics.observeTurnLoad(() => scheduler.load());
  const rateLimiter = new MemberRateLimiter((request) => takeMemberTurn(db, request));
  const router = new MessageRouter({
    ...options,
    ...state,
    detector: new TriggerDetector(identity.id, options.caches ?? DEFAULT_CACHE_LIMITS),
    remoteStops: state.crossProcessStops,
    queue: scheduler,
    rateLimiter,
    botUserId: identity.id,
    cast,
    prefetch,
  });
  return { router, scheduler, rateLimiter };
}

/**
 * Voice calls, when the operator turned them on and speech is set up: what members say there
 * goes through VoiceIntake into the same turn queue as their messages.
 */
function voiceChannels(
  options: DiscordBotOptions,
  state: SharedState,
  turns: { scheduler: ChannelTurnScheduler<AcceptedMessage>; rateLimiter: MemberRateLimiter },
): VoiceChannels | undefined {
  const { voiceChannels: config, speech, clock } = options;
  if (config === undefined || speech === undefined) return undefined;
  const logger = options.logger.child({ component: 'voice' });
  return new VoiceChannels({
    config,
    speech,
    stops: state.stops,
    accounting: { dailyBudget: state.dailyBudget, metrics: state.metrics, logger },
    clock,
    logger,
    intake: new VoiceIntake({
      ...options,
      ...state,
      queue: turns.scheduler,
      rateLimiter: turns.rateLimiter,
      logger,
    }),
  });
}

/**
 * The bot's own writes enter their channel's window when Discord confirms them, as members see
 * them: the gateway's echo may come after the channel's next turn reads the window (or never,
 * across a reconnect), and a reply missing there would be missing from the model's context.
 */
function followOwnWrites(
  delivery: DeliveryPort,
  history: ChannelHistory,
  identity: BotIdentity,
): () => void {
  return delivery.onWritten((write) => {
    switch (write.kind) {
      case 'created':
        history.add(write.channelId, {
          id: write.messageId,
          authorId: identity.id,
          authorName: write.characterName ?? identity.name,
          characterName: write.characterName,
          authorIsBot: true,
          content: write.message.content,
          createdAt: SnowflakeUtil.timestampFrom(write.messageId),
          attachments: [],
          replyToMessageId: write.message.replyTo,
        });
        return;
      case 'edited':
        history.update(write.channelId, { id: write.messageId, content: write.content });
        return;
      case 'deleted':
        history.remove(write.channelId, write.messageId);
    }
  });
}

/** Each channel's recent messages, filled from Discord once, then fed by the gateway. */
function channelHistory(options: {
  client: Client;
  logger: DiscordBotOptions['logger'];
  caches: CacheLimits;
}) {
  const { client, logger, caches } = options;
  return new ChannelHistory({
    perChannel: caches.historyPerChannel,
    maxChannels: caches.channels,
    fetchRecent: async (channelId, limit) => {
      const channel = await client.channels.fetch(channelId);
      if (channel === null || !channel.isTextBased()) return [];
      // Not cached: discord.js emits no messageCreate for a message already in its cache, and
      // this read can return one whose gateway event has not been handled yet.
      const messages = await channel.messages.fetch({ limit, cache: false });
      return historyMessagesOf([...messages.values()], { channelId, logger });
    },
    logger,
  });
}

/** Claims whose outcome the members have seen; written in the background, best effort. */
function settleInBackground(
  options: DiscordBotOptions,
  shutdown: AbortSignal,
): (messageIds: readonly string[]) => void {
  return (messageIds) =>
    inBackground(options, shutdown, 'could not settle answered messages', () =>
      settleClaims(options.db, messageIds),
    );
}

/** A ledger write in the background, waited through an outage like intake's steps. */
function inBackground(
  options: DiscordBotOptions,
  shutdown: AbortSignal,
  failure: string,
  write: () => Promise<void>,
): void {
  const { clock, logger } = options;
  void retryTransient(write, { clock, signal: shutdown, maxElapsedMs: OUTAGE_HOLD_MS }).catch(
    (error: unknown) => logger.warn({ err: error }, failure),
  );
}
