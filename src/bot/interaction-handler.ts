import type { Interaction } from 'discord.js';
import type { Logger } from '../core/logger.ts';
import type { Database } from '../db/database.ts';
import type { CommandRouter } from './commands/command-router.ts';
import type { DeliveryPort } from './delivery/delivery-port.ts';
import type { MessageRouter } from './intake/message-router.ts';
import type { DatabaseStep } from './intake/outage-hold.ts';
import { handleRetryButton, isRetryButton } from './intake/retry.ts';
import type { CrossProcessStops } from './stops/cross-process-stops.ts';
import { handleStopButton, isStopButton } from './stops/stop-button.ts';

export interface InteractionHandlerOptions {
  commandRouter: CommandRouter;
  router: MessageRouter;
  db: Database;
  logger: Logger;
  instanceId: string;
  ownerIds: readonly string[];
  /** A press's claim, held through a short database outage like a message's. */
  databaseStep: DatabaseStep;
  /** Where a Stop press goes: the turn may stream in this process or another. */
  stops: Pick<CrossProcessStops, 'stopByCommand'>;
  delivery: DeliveryPort;
}

/**
 * Slash commands and their components go to the command router; a Stop button stops the reply
 * it sits under; a Retry button re-asks the message it answers.
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
  if (!interaction.isButton()) return;
  if (isStopButton(interaction)) {
    await handleStopButton(interaction, options).catch((error: unknown) => {
      logger.warn({ err: error }, 'stop button failed');
    });
    return;
  }
  if (!isRetryButton(interaction)) return;
  await handleRetryButton(interaction, {
    ...options,
    retry: (original, author) => router.retry(original, author),
  }).catch((error: unknown) => {
    logger.warn({ err: error }, 'retry button failed');
  });
}
