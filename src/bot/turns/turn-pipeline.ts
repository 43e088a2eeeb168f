import type { BotMetrics } from '../../core/metrics.ts';
import { applyChannelOverrides } from '../../core/channel-settings.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import { settleClaims } from '../../db/claim-repository.ts';
import { takeMemberTurn } from '../../db/member-turn-repository.ts';
import { retryTransient } from '../../db/retry-transient.ts';
import { StreamOrchestrator } from '../../stream/turn/stream-orchestrator.ts';
import type { BotServices } from '../bot-services.ts';
import type { ChannelTurnScheduler } from './channel-turn-scheduler.ts';
import { DatabaseTurnJournal } from './database-turn-journal.ts';
import { TypingAllowance } from '../delivery/typing-allowance.ts';
import type { DiscordBotOptions } from '../discord-bot-options.ts';
import { MemberRateLimiter } from '../limits/member-rate-limiter.ts';
import { MessageRouter, type DatabaseStep } from '../intake/message-router.ts';
import { OUTAGE_HOLD_MS } from '../intake/outage-hold.ts';
import {
  DEFAULT_SUMMARY_CADENCE,
  RollingSummarizer,
} from '../context/summary/rolling-summarizer.ts';
import { fetchDownload } from '../context/trigger-attachments.ts';
import { TriggerDetector } from '../intake/trigger-detector.ts';
import type { Trigger } from '../intake/trigger.ts';
import { placeOfChannel } from './turn-place.ts';
import { TurnRunner } from './turn-runner.ts';

export interface TurnPipelineOptions {
  options: DiscordBotOptions;
  services: BotServices;
  metrics: BotMetrics;
  scheduler: ChannelTurnScheduler<Trigger>;
  /** The bot's own user, known once the client is ready. */
  botUserId: string;
  botName: string;
  shutdownSignal: AbortSignal;
  /** Intake's database steps, held through a short outage (outage-hold.ts). */
  databaseStep: DatabaseStep;
}

/**
 * The path of a member's message once the client is ready: the router (intake, stops, claims,
 * scheduling) and the runner (context, stream, delivery, summary) it feeds through the scheduler.
 */
export function createTurnPipeline(pipeline: TurnPipelineOptions): {
  runner: TurnRunner;
  router: MessageRouter;
} {
  const { options, services, metrics, botUserId, shutdownSignal } = pipeline;
  const { db, clock, logger } = options;
  const orchestrator = new StreamOrchestrator({
    journal: new DatabaseTurnJournal({
      db,
      botUserId,
      botName: pipeline.botName,
      instanceId: options.instanceId,
      clock,
      logger,
      signal: shutdownSignal,
    }),
    clock,
    random: options.random,
    logger,
    ...(options.streamOptions === undefined ? {} : { options: options.streamOptions }),
  });
  const summarizer = new RollingSummarizer({
    db,
    providers: options.providers,
    secretBox: options.secretBox,
    dailyBudget: services.dailyBudget,
    loadSettings: (scopeId) => services.settings.get(scopeId),
    logger,
    ...DEFAULT_SUMMARY_CADENCE,
    ...options.summaryCadence,
    signal: shutdownSignal,
  });
  // Claims whose outcome the members have seen; written in the background, best effort.
  const settle = (messageIds: readonly string[]): void => {
    void retryTransient(() => settleClaims(db, messageIds), {
      clock,
      signal: shutdownSignal,
      maxElapsedMs: OUTAGE_HOLD_MS,
    }).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not settle answered messages');
    });
  };
  const runner = new TurnRunner({
    db,
    secretBox: options.secretBox,
    providers: options.providers,
    tools: options.tools,
    orchestrator,
    history: services.history,
    delivery: services.delivery,
    typing: new TypingAllowance(clock, { onSkipped: () => metrics.typingSkipped() }),
    stops: services.stops,
    dailyBudget: services.dailyBudget,
    clock,
    logger,
    metrics,
    botUserId,
    download: options.download ?? fetchDownload,
    shutdownSignal,
    loadSettings: (scopeId, channelId) => settingsIn(services, { scopeId, channelId }),
    settle,
    placeOf: (channelId) => placeOfChannel(options.client, channelId),
    afterTurn: (turn) => summarizer.schedule(turn),
  });
  const router = new MessageRouter({
    db,
    settings: services.settings,
    history: services.history,
    detector: new TriggerDetector(botUserId),
    stops: services.stops,
    remoteStops: services.crossProcessStops,
    scheduler: pipeline.scheduler,
    rateLimiter: new MemberRateLimiter((request) => takeMemberTurn(db, request)),
    dailyBudget: services.dailyBudget,
    notices: services.notices,
    settle,
    databaseStep: pipeline.databaseStep,
    clock,
    logger,
    instanceId: options.instanceId,
    botUserId,
    ownerIds: options.ownerIds,
  });
  return { runner, router };
}

/** A scope's settings as they apply in one channel: the two cached reads, merged. */
async function settingsIn(
  services: BotServices,
  place: { scopeId: string; channelId: string },
): Promise<ScopeSettings> {
  const [settings, overrides] = await Promise.all([
    services.settings.get(place.scopeId),
    services.channelSettings.get(place.channelId),
  ]);
  return applyChannelOverrides(settings, overrides);
}
