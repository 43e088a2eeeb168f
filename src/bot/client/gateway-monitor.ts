import type { WebSocketOptions } from 'discord.js';
import type { Logger } from '../../core/logger.ts';
import type { GatewayHealth } from '../../metrics/gateway-health.ts';
import { closeOutcome, fatalCloseAdvice } from './gateway-close-codes.ts';

/** The @discordjs/ws manager discord.js builds its gateway on (handed to `ws.buildStrategy`). */
export type GatewayManager = Parameters<NonNullable<WebSocketOptions['buildStrategy']>>[0];

interface ShardEvent {
  shardId: number;
}

/** The manager's shard events this monitor reads, by their @discordjs/ws names. */
interface GatewayEvents {
  on(event: 'closed', listener: (event: ShardEvent & { code: number }) => void): unknown;
  on(event: 'ready' | 'resumed', listener: (event: ShardEvent) => void): unknown;
  on(event: 'error', listener: (event: ShardEvent & { error: unknown }) => void): unknown;
  on(event: 'heartbeat', listener: (event: ShardEvent & { latency: number }) => void): unknown;
}

export interface GatewayMonitorOptions {
  logger: Logger;
  health: GatewayHealth;
  /** A close discord.js never recovers from: `advice` is the one line saying what to fix. */
  onFatalClose: (advice: string, code: number) => void;
}

/**
 * Watches every gateway connection of the client: each close is logged with its code and what
 * discord.js does next (resume, reconnect), each new or resumed session is logged, and the
 * gateway's health follows. discord.js's Client events carry no close code for recoverable
 * closes, so the monitor listens to the @discordjs/ws manager underneath.
 */
export class GatewayMonitor {
  readonly #options: GatewayMonitorOptions;
  #closing = false;
  /**
   * Set at the first close of an outage: while discord.js retries every 0.5 s, later closes
   * and errors of the same outage go to debug instead of flooding the log.
   */
  #away = false;

  constructor(options: GatewayMonitorOptions) {
    this.#options = options;
  }

  observe(manager: GatewayManager): void {
    const events = manager as unknown as GatewayEvents;
    events.on('closed', ({ code, shardId }) => this.#closed(code, shardId));
    events.on('ready', ({ shardId }) => {
      this.#away = false;
      this.#options.health.connected(shardId);
      this.#options.logger.info({ shardId }, 'gateway session started');
    });
    events.on('resumed', ({ shardId }) => {
      this.#away = false;
      this.#options.health.connected(shardId);
      this.#options.logger.info({ shardId }, 'gateway session resumed');
    });
    events.on('heartbeat', ({ latency, shardId }) => {
      this.#options.health.heartbeat(shardId, latency);
    });
    events.on('error', ({ error, shardId }) => {
      const { logger } = this.#options;
      logger[this.#away ? 'debug' : 'warn']({ err: error, shardId }, 'gateway connection error');
    });
  }

  /** The process is shutting down: the client's own closing is not an outage. */
  close(): void {
    this.#closing = true;
  }

  #closed(code: number, shardId: number): void {
    if (this.#closing) return;
    const { health, logger } = this.#options;
    const advice = fatalCloseAdvice(code);
    if (advice !== undefined) {
      health.failed(shardId);
      this.#options.onFatalClose(advice, code);
      return;
    }
    health.disconnected(shardId);
    const next = closeOutcome(code);
    const level = this.#away ? 'debug' : 'warn';
    this.#away = true;
    logger[level](
      { shardId, code, next },
      next === 'resume'
        ? 'gateway connection closed; resuming the session'
        : 'gateway connection closed; starting a new session',
    );
  }
}
