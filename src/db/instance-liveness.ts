import pg from 'pg';
import { systemClock, type Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';

/**
 * Process liveness without heartbeats. On PostgreSQL each process holds a session advisory
 * lock named after its instance id on a dedicated connection: when the process dies, its
 * connection closes and the lock is gone at once. PGlite is single-process, so every instance
 * but this one is dead.
 */
export interface InstanceLiveness {
  /** Marks this process alive until the returned function is called (or it exits). */
  hold(instanceId: string): Promise<() => Promise<void>>;
  isAlive(instanceId: string): Promise<boolean>;
  /**
   * Whether this process may take another's missing lock as proof that it died. Not while its
   * own lock is lost (it may be the one cut off), and not soon after the server (re)started:
   * every live process lost its lock then and is re-taking it.
   */
  canJudgePeers(): Promise<boolean>;
}

/** The advisory-lock namespace of instance liveness ("tomo"). */
const LIVENESS_LOCK_CLASS = 0x746f6d6f;

export const LIVENESS_DEFAULTS = {
  /** Waits between attempts to re-take a lost lock: from the first to the longest. */
  reconnectInitialDelayMs: 250,
  reconnectMaxDelayMs: 5_000,
  /**
   * After a server start, how long before a missing lock means a dead process: many times the
   * longest reconnect wait, so a live process has re-taken its lock well before.
   */
  peerReconnectGraceMs: 60_000,
} as const;

export interface PostgresLivenessOptions {
  pool: pg.Pool;
  /** Connection settings for the dedicated lock connection (outside the pool). */
  connection: pg.ClientConfig;
  logger: Logger;
  clock?: Clock | undefined;
  peerReconnectGraceMs?: number | undefined;
}

/** `close` releases every lock still held and stops re-taking them (the database is closing). */
export function postgresLiveness(
  options: PostgresLivenessOptions,
): InstanceLiveness & { close(): Promise<void> } {
  const { pool } = options;
  let holder: LockHolder | undefined;
  const holders = new Set<LockHolder>();
  return {
    async hold(instanceId) {
      const held = new LockHolder({ ...options, clock: options.clock ?? systemClock, instanceId });
      await held.take();
      holder = held;
      holders.add(held);
      return () => {
        holders.delete(held);
        return held.release();
      };
    },
    async close() {
      await Promise.all([...holders].map((held) => held.release()));
      holders.clear();
    },
    async isAlive(instanceId) {
      const client = await pool.connect();
      try {
        const result = await client.query<{ taken: boolean }>(
          'select pg_try_advisory_lock($1, hashtext($2)) as taken',
          [LIVENESS_LOCK_CLASS, instanceId],
        );
        const taken = result.rows[0]?.taken === true;
        if (taken) {
          await client.query('select pg_advisory_unlock($1, hashtext($2))', [
            LIVENESS_LOCK_CLASS,
            instanceId,
          ]);
        }
        return !taken;
      } finally {
        client.release();
      }
    },
    async canJudgePeers() {
      if (holder?.lost === true) return false;
      const result = await pool.query<{ uptime: number }>(
        'select (extract(epoch from now() - pg_postmaster_start_time()) * 1000)::float8 as uptime',
      );
      const grace = options.peerReconnectGraceMs ?? LIVENESS_DEFAULTS.peerReconnectGraceMs;
      return (result.rows[0]?.uptime ?? 0) >= grace;
    },
  };
}

/**
 * One process's lock on its own connection. The connection's errors are always handled here
 * (a restart's 57P01 and "Connection terminated unexpectedly" never reach uncaughtException);
 * a lost connection is replaced, with growing waits, and the lock taken again, until released.
 */
class LockHolder {
  lost = false;
  private client: pg.Client | undefined;
  private readonly released = new AbortController();
  private readonly options: PostgresLivenessOptions & { clock: Clock; instanceId: string };

  constructor(options: PostgresLivenessOptions & { clock: Clock; instanceId: string }) {
    this.options = options;
  }

  /** Connects and takes the lock; throws when the database cannot be reached. */
  async take(): Promise<void> {
    const client = new pg.Client({
      ...this.options.connection,
      application_name: 'tomodachi-liveness',
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client.on('error', (error) => this.onLost(client, error));
    client.on('end', () => this.onLost(client, undefined));
    try {
      await client.connect();
      await client.query('select pg_advisory_lock($1, hashtext($2))', [
        LIVENESS_LOCK_CLASS,
        this.options.instanceId,
      ]);
    } catch (error) {
      this.client = undefined;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.released.signal.aborted) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.lost = false;
  }

  async release(): Promise<void> {
    this.released.abort();
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    await client
      .query('select pg_advisory_unlock($1, hashtext($2))', [
        LIVENESS_LOCK_CLASS,
        this.options.instanceId,
      ])
      .catch(() => undefined);
    await client.end().catch(() => undefined);
  }

  private onLost(client: pg.Client, error: Error | undefined): void {
    if (client !== this.client || this.released.signal.aborted) return;
    this.client = undefined;
    this.lost = true;
    this.options.logger.warn(
      { err: error, instanceId: this.options.instanceId },
      "lost the database connection holding this process's liveness lock: taking it again",
    );
    void client.end().catch(() => undefined);
    void this.retake();
  }

  private async retake(): Promise<void> {
    const { clock, logger } = this.options;
    let delay: number = LIVENESS_DEFAULTS.reconnectInitialDelayMs;
    for (let attempt = 1; !this.released.signal.aborted; attempt += 1) {
      try {
        await clock.sleep(delay, this.released.signal);
        await this.take();
        logger.info({ instanceId: this.options.instanceId, attempt }, 'liveness lock taken again');
        return;
      } catch (error) {
        if (this.released.signal.aborted) return;
        logger.debug({ err: error, attempt }, 'could not take the liveness lock again yet');
        delay = Math.min(delay * 2, LIVENESS_DEFAULTS.reconnectMaxDelayMs);
      }
    }
  }
}

export function singleProcessLiveness(): InstanceLiveness {
  const held = new Set<string>();
  return {
    hold(instanceId) {
      held.add(instanceId);
      return Promise.resolve(() => {
        held.delete(instanceId);
        return Promise.resolve();
      });
    },
    isAlive: (instanceId) => Promise.resolve(held.has(instanceId)),
    canJudgePeers: () => Promise.resolve(true),
  };
}
