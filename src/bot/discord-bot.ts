import type { Client } from 'discord.js';
import { noMetrics, type BotMetrics } from '../core/metrics.ts';
import { releaseClaims } from '../db/claim-repository.ts';
import type { StopRegistry } from '../stream/stop/stop-registry.ts';
import { attachBotEvents } from './bot-event-wiring.ts';
import { createBotServices, type BotServices } from './bot-services.ts';
import type { ChannelHistory } from './context/channel-history.ts';
import { ChannelLocks } from './turns/channel-locks.ts';
import type { ChannelSettingsCache } from './settings/channel-settings-cache.ts';
import { ChannelTurnScheduler } from './turns/channel-turn-scheduler.ts';
import { registerCommands } from './commands/command-registration.ts';
import { registeredDefinitions } from './commands/slash-command.ts';
import { followOtherProcesses } from './control/control-subscriptions.ts';
import type { CrossProcessStops } from './stops/cross-process-stops.ts';
import type { DiscordBotOptions } from './discord-bot-options.ts';
import { handleInteraction } from './interaction-handler.ts';
import type { DatabaseStep, MessageRouter } from './intake/message-router.ts';
import { outageHold } from './intake/outage-hold.ts';
import type { SettingsCache } from './settings/settings-cache.ts';
import { channelOnShards } from './sharding/channel-ownership.ts';
import type { Trigger } from './intake/trigger.ts';
import { createTurnPipeline } from './turns/turn-pipeline.ts';
import type { TurnRunner } from './turns/turn-runner.ts';
import { recoverUnanswered } from './recovery/unanswered-recovery.ts';

export type { DiscordBotOptions } from './discord-bot-options.ts';

/** A turn holding its channel longer than this is presumed stuck and its lock handed on. */
const CHANNEL_HOLD_TIMEOUT_MS = 15 * 60_000;

/**
 * The bot on Discord: wires the gateway events to the message router, the channel scheduler to
 * the turn runner, and Discord's rate-limit headers to the channels' write budgets. Its
 * services are built in bot-services.ts, the turn path once ready in turn-pipeline.ts.
 */
export class DiscordBot {
  readonly settings: SettingsCache;
  readonly channelSettings: ChannelSettingsCache;
  readonly history: ChannelHistory;
  readonly stops: StopRegistry;
  readonly crossProcessStops: CrossProcessStops;
  private readonly options: DiscordBotOptions;
  private readonly metrics: BotMetrics;
  private readonly services: BotServices;
  private readonly scheduler: ChannelTurnScheduler<Trigger>;
  private readonly shutdownController = new AbortController();
  /** Ends intake's outage hold at the start of shutdown (outage-hold.ts). */
  private readonly intakeHold = new AbortController();
  private readonly databaseStep: DatabaseStep;
  private router: MessageRouter | undefined;
  private runner: TurnRunner | undefined;

  constructor(options: DiscordBotOptions) {
    this.options = options;
    this.metrics = options.metrics ?? noMetrics;
    this.services = createBotServices(options, this.shutdownController.signal);
    this.databaseStep = outageHold({
      clock: options.clock,
      logger: options.logger,
      signal: this.intakeHold.signal,
    });
    this.settings = this.services.settings;
    this.channelSettings = this.services.channelSettings;
    this.history = this.services.history;
    this.stops = this.services.stops;
    this.crossProcessStops = this.services.crossProcessStops;
    this.scheduler = new ChannelTurnScheduler<Trigger>({
      locks: new ChannelLocks({ clock: options.clock, holdTimeoutMs: CHANNEL_HOLD_TIMEOUT_MS }),
      logger: options.logger,
      runTurn: (channelId, batch, lease) =>
        this.runner?.run(channelId, batch, lease) ?? Promise.resolve(),
      weigh: (trigger) => trigger.message.content.length,
    });
    this.metrics.observeTurnLoad(() => this.scheduler.load());
  }

  /** Attaches to the client's events; call before login. */
  attach(): void {
    const { client, logger } = this.options;
    const { services } = this;
    services.crossProcessStops.start();
    followOtherProcesses({
      bus: services.bus,
      settings: services.settings,
      channelSettings: services.channelSettings,
      dailyBudget: services.dailyBudget,
      instanceId: this.options.instanceId,
      logger,
    });
    client.once('clientReady', (ready) => {
      this.onReady(ready.user.id, ready.user.displayName);
      void this.registerCommands(ready);
      void this.recoverUnanswered();
    });
    attachBotEvents({
      client,
      clock: this.options.clock,
      logger,
      metrics: this.metrics,
      budgets: services.delivery.budgets,
      history: services.history,
      router: () => this.router,
      onInteraction: (interaction) =>
        handleInteraction(interaction, {
          commandRouter: services.commandRouter,
          router: this.router,
          settings: services.settings,
          db: this.options.db,
          logger,
          instanceId: this.options.instanceId,
          ownerIds: this.options.ownerIds,
          databaseStep: this.databaseStep,
          stops: services.crossProcessStops,
        }),
    });
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
   * run once connected, then periodically (main.ts maintenance). Never throws.
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
      delivery: this.services.delivery,
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

  private onReady(botUserId: string, botName: string): void {
    const { runner, router } = createTurnPipeline({
      options: this.options,
      services: this.services,
      metrics: this.metrics,
      scheduler: this.scheduler,
      botUserId,
      botName,
      shutdownSignal: this.shutdownController.signal,
      databaseStep: this.databaseStep,
    });
    this.runner = runner;
    this.router = router;
  }

  private async registerCommands(client: Client<true>): Promise<void> {
    try {
      await registerCommands({
        client,
        db: this.options.db,
        logger: this.options.logger,
        definitions: registeredDefinitions(this.services.commands),
        guildId: this.options.commandGuildId,
      });
    } catch (error) {
      // Mentions and DMs still work without slash commands; the next start tries again.
      this.options.logger.error({ err: error }, 'could not register slash commands');
    }
  }
}
