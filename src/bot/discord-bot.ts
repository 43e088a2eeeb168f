import { ChannelType, RESTEvents, type Client, type Interaction } from 'discord.js';
import type { Clock, RandomSource } from '../core/clock.ts';
import { LocalControlBus, type ControlBus } from '../core/control-bus.ts';
import type { Logger } from '../core/logger.ts';
import { noMetrics, type BotMetrics } from '../core/metrics.ts';
import type { ToolExecutor } from '../core/tool.ts';
import type { Database } from '../db/database.ts';
import { applyChannelOverrides } from '../core/channel-settings.ts';
import type { ScopeSettings } from '../core/settings.ts';
import { loadChannelOverrides } from '../db/channel-settings-repository.ts';
import { loadScopeSettings } from '../db/scope-settings-repository.ts';
import type { ProviderFactory } from '../providers/provider-factory.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { StopRegistry } from '../stream/stop-registry.ts';
import {
  StreamOrchestrator,
  type StreamOrchestratorDependencies,
} from '../stream/stream-orchestrator.ts';
import { claimMessage, releaseClaims, settleClaims } from '../db/claim-repository.ts';
import { takeMemberTurn } from '../db/member-turn-repository.ts';
import { retryTransient } from '../db/retry-transient.ts';
import type { ToolCatalog } from '../tools/tool-catalog.ts';
import { ChannelHistory } from './channel-history.ts';
import { ChannelSettingsCache } from './channel-settings-cache.ts';
import { announcer, followOtherProcesses } from './control/control-subscriptions.ts';
import { CONTROL_TOPICS } from './control/control-messages.ts';
import { CrossProcessStops } from './control/cross-process-stops.ts';
import { CommandCooldowns } from './commands/command-cooldowns.ts';
import { createCommands } from './commands/command-list.ts';
import { registerCommands } from './commands/command-registration.ts';
import { CommandRouter } from './commands/command-router.ts';
import { registeredDefinitions, type SlashCommand } from './commands/slash-command.ts';
import { DEFAULT_SUMMARY_CADENCE, RollingSummarizer } from './summary/rolling-summarizer.ts';
import { ChannelLocks } from './channel-locks.ts';
import { ChannelTurnScheduler } from './channel-turn-scheduler.ts';
import { DailyBudget } from './daily-budget.ts';
import { DatabaseTurnJournal } from './database-turn-journal.ts';
import { DiscordMessageTarget } from './delivery/discord-message-target.ts';
import { reportDiscordResponses } from './discord-rest-metrics.ts';
import { TypingAllowance } from './delivery/typing-allowance.ts';
import { readBucket, WriteBudgets } from './delivery/write-budgets.ts';
import { MemberNotices } from './member-notices.ts';
import { MemberRateLimiter } from './member-rate-limiter.ts';
import { guardEvent, historyMessagesOf } from './gateway-tolerance.ts';
import { MessageRouter } from './message-router.ts';
import { handleRetryButton, isRetryButton } from './retry-button.ts';
import { attachSessionBackfill } from './session-backfill-wiring.ts';
import { SettingsCache } from './settings-cache.ts';
import { fetchDownload, type Download } from './trigger-attachments.ts';
import { TriggerDetector } from './trigger-detector.ts';
import type { Trigger } from './trigger.ts';
import { TurnRunner, type TurnPlace } from './turn-runner.ts';
import { channelOnShards, type ProcessShards } from './sharding/channel-ownership.ts';
import { recoverUnanswered } from './unanswered-recovery.ts';

export interface DiscordBotOptions {
  client: Client;
  db: Database;
  secretBox: SecretBox;
  providers: ProviderFactory;
  tools: ToolExecutor;
  /** Switchable tools and MCP states, for `/config tools` and `/doctor`. */
  toolCatalog: ToolCatalog;
  /** DEV_GUILD_ID: slash commands go to this guild only; otherwise they are global. */
  commandGuildId?: string | undefined;
  /** How often channels' rolling summaries are updated (SUMMARY_EVERY_TURNS). */
  summaryCadence?: { everyTurns?: number; keepRecent?: number };
  /** Replaces the slash commands (tests). */
  commands?: SlashCommand[];
  clock: Clock;
  random: RandomSource;
  logger: Logger;
  metrics?: BotMetrics;
  instanceId: string;
  ownerIds: readonly string[];
  /**
   * Control messages between the processes on this database (stops, settings changes, spent
   * tokens). Default: this process only.
   */
  bus?: ControlBus;
  /** A shard child's shards: it recovers only messages of channels on them. */
  shards?: ProcessShards | undefined;
  /** Whether the process that holds a claim still runs (the database's liveness locks). */
  isAlive(instanceId: string): Promise<boolean>;
  /** Whether a missing liveness lock proves a death now (not right after a server restart). */
  canJudgePeers(): Promise<boolean>;
  /** How long shutdown lets live turns finish before stopping them (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /** Overrides of the stream's tunables (tests). */
  streamOptions?: StreamOrchestratorDependencies['options'];
  download?: Download;
}

/** Messages kept per channel window, and channel windows kept. */
const HISTORY_PER_CHANNEL = 50;
const HISTORY_CHANNELS = 5_000;
/** A turn holding its channel longer than this is presumed stuck and its lock handed on. */
const CHANNEL_HOLD_TIMEOUT_MS = 15 * 60_000;
/** How long intake waits out a database outage before telling the member it could not. */
const OUTAGE_HOLD_MS = 120_000;
const SETTINGS_REFRESH_MS = 30_000;
const MESSAGE_ROUTE = /^\/channels\/(\d+)\/messages(?:\/\d+)?$/;

/**
 * The bot on Discord: wires the gateway events to the message router, the channel scheduler to
 * the turn runner, and Discord's rate-limit headers to the channels' write budgets.
 */
export class DiscordBot {
  readonly settings: SettingsCache;
  readonly channelSettings: ChannelSettingsCache;
  readonly history: ChannelHistory;
  readonly stops = new StopRegistry();
  readonly crossProcessStops: CrossProcessStops;
  private readonly options: DiscordBotOptions;
  private readonly metrics: BotMetrics;
  private readonly budgets: WriteBudgets;
  private readonly bus: ControlBus;
  private readonly dailyBudget: DailyBudget;
  private readonly scheduler: ChannelTurnScheduler<Trigger>;
  private readonly shutdownController = new AbortController();
  /**
   * Ends, at the start of shutdown, the waiting of messages whose intake holds through a database
   * outage: they cannot be claimed or handed back, so their members are told now — a supervisor
   * would kill a process that waits out the whole hold, and the messages would be lost unseen.
   */
  private readonly intakeHold = new AbortController();
  private readonly commands: SlashCommand[];
  private readonly commandRouter: CommandRouter;
  private readonly notices: MemberNotices;
  private router: MessageRouter | undefined;
  private runner: TurnRunner | undefined;

  constructor(options: DiscordBotOptions) {
    this.options = options;
    this.metrics = options.metrics ?? noMetrics;
    const { client, db, clock, logger } = options;
    this.budgets = new WriteBudgets(clock);
    this.bus = options.bus ?? new LocalControlBus();
    const announce = announcer({ bus: this.bus, logger });
    this.crossProcessStops = new CrossProcessStops({
      stops: this.stops,
      bus: this.bus,
      clock,
      logger,
      instanceId: options.instanceId,
    });
    this.settings = new SettingsCache({
      load: (scopeId) => loadScopeSettings(db, scopeId),
      clock,
      logger,
      refreshAfterMs: SETTINGS_REFRESH_MS,
      announce: (change) =>
        announce(CONTROL_TOPICS.settings, { origin: options.instanceId, ...change }),
    });
    this.dailyBudget = new DailyBudget({
      db,
      clock,
      signal: this.shutdownController.signal,
      announce: (scopeId) =>
        announce(CONTROL_TOPICS.usage, { origin: options.instanceId, scopeId }),
    });
    this.channelSettings = new ChannelSettingsCache({
      load: (channelId) => loadChannelOverrides(db, channelId),
      clock,
      logger,
      refreshAfterMs: SETTINGS_REFRESH_MS,
      announce: (channelId) =>
        announce(CONTROL_TOPICS.channelSettings, { origin: options.instanceId, channelId }),
    });
    this.history = new ChannelHistory({
      perChannel: HISTORY_PER_CHANNEL,
      maxChannels: HISTORY_CHANNELS,
      fetchRecent: async (channelId, limit) => {
        const channel = await client.channels.fetch(channelId);
        if (channel === null || !channel.isTextBased()) return [];
        const messages = await channel.messages.fetch({ limit });
        return historyMessagesOf([...messages.values()], { channelId, logger });
      },
      logger,
    });
    this.commands = options.commands ?? createCommands();
    this.commandRouter = new CommandRouter({
      commands: this.commands,
      services: {
        db,
        settings: this.settings,
        channelSettings: this.channelSettings,
        secretBox: options.secretBox,
        providers: options.providers,
        tools: options.toolCatalog,
        stops: this.crossProcessStops,
        clock,
        logger,
        ownerIds: options.ownerIds,
        instanceId: options.instanceId,
      },
      cooldowns: new CommandCooldowns({ clock }),
      claim: (interactionId) =>
        claimMessage(db, { key: `interaction:${interactionId}`, instanceId: options.instanceId }),
    });
    this.scheduler = new ChannelTurnScheduler<Trigger>({
      locks: new ChannelLocks({ clock, holdTimeoutMs: CHANNEL_HOLD_TIMEOUT_MS }),
      logger,
      runTurn: (channelId, batch, lease) =>
        this.runner?.run(channelId, batch, lease) ?? Promise.resolve(),
      weigh: (trigger) => trigger.message.content.length,
    });
    this.notices = new MemberNotices({ clock, logger });
    this.metrics.observeTurnLoad(() => this.scheduler.load());
  }

  /** Attaches to the client's events; call before login. */
  attach(): void {
    const { client, logger } = this.options;
    this.crossProcessStops.start();
    followOtherProcesses({
      bus: this.bus,
      settings: this.settings,
      channelSettings: this.channelSettings,
      dailyBudget: this.dailyBudget,
      instanceId: this.options.instanceId,
      logger,
    });
    client.once('clientReady', (ready) => {
      this.onReady(ready.user.id, ready.user.displayName);
      void this.registerCommands(ready);
      void this.recoverUnanswered();
    });
    client.on('messageCreate', (message) => this.router?.onMessageCreate(message));
    // A payload our handlers cannot read (a compatible server's nulls) costs that event only.
    client.on(
      'messageUpdate',
      guardEvent('messageUpdate', logger, (old, message) =>
        this.router?.onMessageUpdate(old, message),
      ),
    );
    client.on(
      'messageDelete',
      guardEvent('messageDelete', logger, (message) => this.router?.onMessageDelete(message)),
    );
    client.on(
      'channelDelete',
      guardEvent('channelDelete', logger, (channel) => this.history.forgetChannel(channel.id)),
    );
    attachSessionBackfill({
      client,
      clock: this.options.clock,
      logger,
      deliver: (message) => {
        this.router?.onMessageCreate(message);
        return Promise.resolve();
      },
    });
    client.on(
      'interactionCreate',
      guardEvent('interactionCreate', logger, (interaction) => this.onInteraction(interaction)),
    );
    client.rest.on(RESTEvents.Response, (request, response) => {
      const channelId = MESSAGE_ROUTE.exec(request.path)?.[1];
      if (channelId === undefined) return;
      const bucket = readBucket(response.headers);
      if (bucket !== undefined) this.budgets.observe(channelId, bucket);
    });
    reportDiscordResponses(client, this.metrics);
    client.rest.on(RESTEvents.RateLimited, (info) => {
      if (info.route.startsWith('/channels/:id/messages')) {
        this.budgets.observeRateLimited(info.majorParameter, info.timeToReset);
      }
    });
    client.on('error', (error) => logger.error({ err: error }, 'Discord client error'));
  }

  /**
   * Resolves once no channel has a live or waiting turn. A trigger still on its way through the
   * router (settings, claim) is not counted: call it after the turn has visibly started.
   */
  idle(): Promise<void> {
    return this.scheduler.whenIdle();
  }

  /**
   * Graceful shutdown: stop taking triggers; messages accepted but not started are given back
   * (their claims released, so another process or the next start answers them); live turns get
   * `shutdownGraceMs` to finish, then are stopped and recorded `stopped`.
   */
  async shutdown(): Promise<void> {
    this.router?.close();
    this.intakeHold.abort(new Error('shutting down'));
    await this.router?.drained();
    const unstarted = this.scheduler.close().map((trigger) => trigger.message.id);
    if (unstarted.length > 0) {
      await releaseClaims(this.options.db, unstarted, this.options.instanceId).then(
        () =>
          this.options.logger.info({ messages: unstarted.length }, 'waiting messages handed back'),
        (error: unknown) =>
          this.options.logger.warn({ err: error }, 'could not hand messages back'),
      );
    }
    const grace = new AbortController();
    await Promise.race([
      this.scheduler.whenIdle(),
      this.options.clock.sleep(this.options.shutdownGraceMs, grace.signal).catch(() => undefined),
    ]);
    grace.abort();
    this.shutdownController.abort(new Error('shutting down'));
    await this.scheduler.whenIdle();
  }

  /**
   * Answers member messages owed by a process that stopped (or handed back at its shutdown):
   * run once connected, then periodically (index.ts maintenance). Never throws.
   */
  async recoverUnanswered(): Promise<void> {
    const router = this.router;
    if (router === undefined) return;
    const { shards } = this.options;
    await recoverUnanswered({
      db: this.options.db,
      client: this.options.client,
      clock: this.options.clock,
      logger: this.options.logger,
      instanceId: this.options.instanceId,
      isAlive: (instanceId) => this.options.isAlive(instanceId),
      canJudgePeers: () => this.options.canJudgePeers(),
      answer: (message) => router.recover(message),
      ...(shards === undefined
        ? {}
        : { owns: (channelId: string) => channelOnShards(this.options.client, channelId, shards) }),
    }).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not look for unanswered messages');
    });
  }

  /** Claims whose outcome the members have seen; written in the background, best effort. */
  private settle(messageIds: readonly string[]): void {
    void retryTransient(() => settleClaims(this.options.db, messageIds), {
      clock: this.options.clock,
      signal: this.shutdownController.signal,
      maxElapsedMs: OUTAGE_HOLD_MS,
    }).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not settle answered messages');
    });
  }

  private onReady(botUserId: string, botName: string): void {
    const { options } = this;
    const dailyBudget = this.dailyBudget;
    const orchestrator = new StreamOrchestrator({
      journal: new DatabaseTurnJournal({
        db: options.db,
        botUserId,
        botName,
        instanceId: options.instanceId,
        clock: options.clock,
        logger: options.logger,
        signal: this.shutdownController.signal,
      }),
      clock: options.clock,
      random: options.random,
      logger: options.logger,
      ...(options.streamOptions === undefined ? {} : { options: options.streamOptions }),
    });
    const summarizer = new RollingSummarizer({
      db: options.db,
      providers: options.providers,
      secretBox: options.secretBox,
      dailyBudget,
      loadSettings: (scopeId) => this.settings.get(scopeId),
      logger: options.logger,
      ...DEFAULT_SUMMARY_CADENCE,
      ...options.summaryCadence,
      signal: this.shutdownController.signal,
    });
    this.runner = new TurnRunner({
      db: options.db,
      secretBox: options.secretBox,
      providers: options.providers,
      tools: options.tools,
      orchestrator,
      history: this.history,
      budgets: this.budgets,
      typing: new TypingAllowance(options.clock, { onSkipped: () => this.metrics.typingSkipped() }),
      stops: this.stops,
      dailyBudget,
      clock: options.clock,
      logger: options.logger,
      metrics: this.metrics,
      botUserId,
      download: options.download ?? fetchDownload,
      shutdownSignal: this.shutdownController.signal,
      loadSettings: (scopeId, channelId) => this.settingsIn(scopeId, channelId),
      settle: (messageIds) => this.settle(messageIds),
      placeOf: (channelId) => this.placeOf(channelId),
      afterTurn: (turn) => summarizer.schedule(turn),
    });
    this.router = new MessageRouter({
      db: options.db,
      settings: this.settings,
      history: this.history,
      detector: new TriggerDetector(botUserId),
      stops: this.stops,
      remoteStops: this.crossProcessStops,
      scheduler: this.scheduler,
      rateLimiter: new MemberRateLimiter((request) => takeMemberTurn(options.db, request)),
      dailyBudget,
      notices: this.notices,
      settle: (messageIds) => this.settle(messageIds),
      databaseStep: (step) => this.holdThroughOutage(step),
      clock: options.clock,
      logger: options.logger,
      instanceId: options.instanceId,
      botUserId,
      ownerIds: options.ownerIds,
    });
  }

  /** A database step of intake (a message, a Retry press), held through a short outage. */
  private holdThroughOutage<T>(step: () => Promise<T>): Promise<T> {
    const { clock, logger } = this.options;
    return retryTransient(step, {
      clock,
      signal: this.intakeHold.signal,
      maxElapsedMs: OUTAGE_HOLD_MS,
      onRetry: ({ attempt, error }) => {
        if (attempt === 1) logger.warn({ err: error }, 'database unreachable: holding a message');
      },
    });
  }

  private async registerCommands(client: Client<true>): Promise<void> {
    try {
      await registerCommands({
        client,
        db: this.options.db,
        logger: this.options.logger,
        definitions: registeredDefinitions(this.commands),
        guildId: this.options.commandGuildId,
      });
    } catch (error) {
      // Mentions and DMs still work without slash commands; the next start tries again.
      this.options.logger.error({ err: error }, 'could not register slash commands');
    }
  }

  private async onInteraction(interaction: Interaction): Promise<void> {
    if (this.commandRouter.owns(interaction)) {
      await this.commandRouter.handle(interaction).catch((error: unknown) => {
        this.options.logger.warn({ err: error }, 'interaction failed');
      });
      return;
    }
    const router = this.router;
    if (router === undefined || !interaction.isButton() || !isRetryButton(interaction)) return;
    try {
      await handleRetryButton(interaction, {
        db: this.options.db,
        logger: this.options.logger,
        instanceId: this.options.instanceId,
        botUserId: interaction.client.user.id,
        ownerIds: this.options.ownerIds,
        loadSettings: (scopeId) => this.settings.get(scopeId),
        retry: (trigger, settings) => router.retry(trigger, settings),
        databaseStep: (step) => this.holdThroughOutage(step),
      });
    } catch (error) {
      this.options.logger.warn({ err: error }, 'retry button failed');
    }
  }

  /** A scope's settings as they apply in one channel: the two cached reads, merged. */
  private async settingsIn(scopeId: string, channelId: string): Promise<ScopeSettings> {
    const [settings, overrides] = await Promise.all([
      this.settings.get(scopeId),
      this.channelSettings.get(channelId),
    ]);
    return applyChannelOverrides(settings, overrides);
  }

  private async placeOf(channelId: string): Promise<TurnPlace | undefined> {
    const { client } = this.options;
    const channel =
      client.channels.cache.get(channelId) ??
      (await client.channels.fetch(channelId).catch(() => null));
    if (channel === null || !channel.isSendable()) return undefined;
    const target = new DiscordMessageTarget(channel);
    if (channel.type === ChannelType.DM) {
      const userName = channel.recipient?.displayName ?? 'someone';
      return { target, persona: { kind: 'dm', userName }, guildLocale: undefined };
    }
    if (!('guild' in channel)) return undefined;
    return {
      target,
      persona: { kind: 'guild', guildName: channel.guild.name, channelName: channel.name },
      guildLocale: channel.guild.preferredLocale,
    };
  }
}
