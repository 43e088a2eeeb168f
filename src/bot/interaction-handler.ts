import type { Interaction } from 'discord.js';
import type { Logger } from '../core/logger.ts';
import type { Database } from '../db/database.ts';
import type { CommandRouter } from './commands/command-router.ts';
import type { CrossProcessStops } from './stops/cross-process-stops.ts';
import type { DatabaseStep, MessageRouter } from './intake/message-router.ts';
import { handleRetryButton, isRetryButton } from './intake/retry-button.ts';
import type { ScopeSettingsCache } from './settings/settings-cache.ts';
import { handleStopButton, isStopButton } from './stops/stop-button.ts';

export interface InteractionHandlerOptions {
  commandRouter: CommandRouter;
  /** Undefined until the client is ready: a Retry before then is ignored. */
  router: MessageRouter | undefined;
  settings: ScopeSettingsCache;
  db: Database;
  logger: Logger;
  instanceId: string;
  ownerIds: readonly string[];
  /** A press's claim, held through a short database outage like a message's. */
  databaseStep: DatabaseStep;
  /** Where a Stop press goes: the turn may stream in this process or another. */
  stops: Pick<CrossProcessStops, 'stopByCommand'>;
}

/**
 * Slash commands and their components go to the command router; a Stop button stops the reply
 * it sits under; a Retry button re-runs a turn.
 */
export async function handleInteraction(
  interaction: Interaction,
  options: InteractionHandlerOptions,
): Promise<void> {
  const { commandRouter, router, logger } = options;
  if (commandRouter.owns(interaction)) {
    await commandRouter.handle(interaction).catch((error: unknown) => {
      logger.warn({ err: error }, 'interaction failed');
    });
    return;
  }
  if (interaction.isButton() && isStopButton(interaction)) {
    await handleStopButton(interaction, {
      stops: options.stops,
      logger,
      ownerIds: options.ownerIds,
    }).catch((error: unknown) => {
      logger.warn({ err: error }, 'stop button failed');
    });
    return;
  }
  if (router === undefined || !interaction.isButton() || !isRetryButton(interaction)) return;
  try {
    await handleRetryButton(interaction, {
      db: options.db,
      logger,
      instanceId: options.instanceId,
      botUserId: interaction.client.user.id,
      ownerIds: options.ownerIds,
      loadSettings: (scopeId) => options.settings.get(scopeId),
      retry: (trigger, settings) => router.retry(trigger, settings),
      databaseStep: options.databaseStep,
    });
  } catch (error) {
    logger.warn({ err: error }, 'retry button failed');
  }
}
