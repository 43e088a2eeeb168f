import pg from 'pg';
import type { Clock } from '../../core/clock.ts';
import { CONTROL_BUS_RESUMED, LocalControlBus, type ControlBus } from '../../core/control-bus.ts';
import type { Logger } from '../../core/logger.ts';
import { CONTROL_CHANNEL, decodeEnvelope, encodeEnvelope } from './control-envelope.ts';

export const CONTROL_BUS_RECONNECT = {
  /** Waits between attempts to listen again after the connection was lost: first and longest. */
  initialDelayMs: 250,
  maxDelayMs: 5_000,
} as const;

export interface PostgresControlBusOptions {
  /** Publishes go through the pool (NOTIFY is one short statement). */
  pool: pg.Pool;
  /** Connection settings of the dedicated LISTEN connection (outside the pool). */
  connection: pg.ClientConfig;
  logger: Logger;
  clock: Clock;
}

/**
 * The control bus over PostgreSQL LISTEN/NOTIFY, shared by every process on the database. One
 * dedicated connection LISTENs on one channel; its errors are always handled here (a server
 * restart never reaches uncaughtException), and a lost connection is replaced with growing
 * waits, after which subscribers hear CONTROL_BUS_RESUMED (what was sent meanwhile is gone).
 */
export class PostgresControlBus implements ControlBus {
  readonly shared = true;
  private readonly options: PostgresControlBusOptions;
  private readonly local: LocalControlBus;
  private readonly closed = new AbortController();
  private client: pg.Client | undefined;

  constructor(options: PostgresControlBusOptions) {
    this.options = options;
    this.local = new LocalControlBus({
      onListenerError: (error, topic) =>
        options.logger.error({ err: error, topic }, 'a control message listener failed'),
    });
  }

  /** Starts listening; throws when the database cannot be reached (start-up fails then). */
  async listen(): Promise<void> {
    const client = new pg.Client({
      ...this.options.connection,
      application_name: 'tomodachi-control',
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client.on('error', (error) => this.onLost(client, error));
    client.on('end', () => this.onLost(client, undefined));
    client.on('notification', (notification) => {
      if (notification.channel === CONTROL_CHANNEL) this.receive(notification.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`listen ${CONTROL_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed.signal.aborted) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
  }

  async publish(topic: string, payload: unknown): Promise<void> {
    await this.options.pool.query('select pg_notify($1, $2)', [
      CONTROL_CHANNEL,
      encodeEnvelope(topic, payload),
    ]);
  }

  subscribe(topic: string, listener: (payload: unknown) => void): () => void {
    return this.local.subscribe(topic, listener);
  }

  async close(): Promise<void> {
    this.closed.abort();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private receive(text: string): void {
    const envelope = decodeEnvelope(text);
    if (envelope === undefined) {
      this.options.logger.warn({ bytes: text.length }, 'ignored a malformed control message');
      return;
    }
    // A topic of a newer version (a rolling deploy) is no fault: nobody here needs it.
    if (!this.local.deliver(envelope.topic, envelope.payload))
      this.options.logger.debug(
        { topic: envelope.topic },
        'ignored a control message of an unknown topic',
      );
  }

  private onLost(client: pg.Client, error: Error | undefined): void {
    if (client !== this.client || this.closed.signal.aborted) return;
    this.client = undefined;
    this.options.logger.warn(
      { err: error },
      'lost the database connection listening for control messages: listening again',
    );
    void client.end().catch(() => undefined);
    void this.relisten();
  }

  private async relisten(): Promise<void> {
    const { clock, logger } = this.options;
    let delay: number = CONTROL_BUS_RECONNECT.initialDelayMs;
    for (let attempt = 1; !this.closed.signal.aborted; attempt += 1) {
      try {
        await clock.sleep(delay, this.closed.signal);
        await this.listen();
        logger.info({ attempt }, 'listening for control messages again');
        this.local.deliver(CONTROL_BUS_RESUMED, undefined);
        return;
      } catch (error) {
        if (this.closed.signal.aborted) return;
        logger.debug({ err: error, attempt }, 'could not listen for control messages yet');
        delay = Math.min(delay * 2, CONTROL_BUS_RECONNECT.maxDelayMs);
      }
    }
  }
}
