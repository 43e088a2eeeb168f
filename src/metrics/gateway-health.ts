import type { Clock } from '../core/clock.ts';

/** A gateway that has been away longer than this makes /healthz answer 503. */
export const GATEWAY_DOWN_GRACE_MS = 30_000;

export type GatewayState = 'connecting' | 'connected' | 'disconnected' | 'failed';

/** One shard's line in /healthz. */
export interface ShardHealthReport {
  shard: number;
  state: GatewayState;
  healthy: boolean;
  /** The last heartbeat's round trip; null before the first acknowledgement. */
  heartbeatLatencyMs: number | null;
}

interface ShardState {
  state: GatewayState;
  awaySince: number;
  heartbeatLatencyMs: number | null;
}

/** How bad each state is, to report the process's worst. */
const SEVERITY: Record<GatewayState, number> = {
  connected: 0,
  connecting: 1,
  disconnected: 2,
  failed: 3,
};

/**
 * The gateway's health for /healthz, per shard of this process: connected, or away for at most
 * the grace period (a resume takes a second or two and should not make a supervisor restart
 * the process). A fatal close is unhealthy at once. Each shard starts "connecting", which
 * counts as away since start. The process is healthy when every shard is.
 */
export class GatewayHealth {
  readonly #clock: Clock;
  readonly #graceMs: number;
  readonly #shards = new Map<number, ShardState>();

  constructor(options: {
    clock: Clock;
    graceMs?: number;
    /** Absent: the process is not a shard process and reports shard 0. */
    shardIds?: readonly number[] | undefined;
  }) {
    this.#clock = options.clock;
    this.#graceMs = options.graceMs ?? GATEWAY_DOWN_GRACE_MS;
    for (const shardId of options.shardIds ?? [0]) {
      this.#shards.set(shardId, {
        state: 'connecting',
        awaySince: options.clock.now(),
        heartbeatLatencyMs: null,
      });
    }
  }

  /** The worst state of this process's shards. */
  get state(): GatewayState {
    return [...this.#shards.values()].reduce<GatewayState>(
      (worst, shard) => (SEVERITY[shard.state] > SEVERITY[worst] ? shard.state : worst),
      'connected',
    );
  }

  connected(shardId = 0): void {
    const shard = this.#shard(shardId);
    if (shard.state === 'failed') return;
    shard.state = 'connected';
  }

  disconnected(shardId = 0): void {
    const shard = this.#shard(shardId);
    if (shard.state === 'failed' || shard.state === 'disconnected') return;
    if (shard.state === 'connected') shard.awaySince = this.#clock.now();
    shard.state = 'disconnected';
  }

  /** Discord will not take this connection back (a fatal close): unhealthy for good. */
  failed(shardId = 0): void {
    this.#shard(shardId).state = 'failed';
  }

  heartbeat(shardId: number, latencyMs: number): void {
    this.#shard(shardId).heartbeatLatencyMs = latencyMs;
  }

  healthy(): boolean {
    return [...this.#shards.values()].every((shard) => this.#healthy(shard));
  }

  report(): ShardHealthReport[] {
    return [...this.#shards.entries()]
      .sort(([left], [right]) => left - right)
      .map(([shardId, shard]) => ({
        shard: shardId,
        state: shard.state,
        healthy: this.#healthy(shard),
        heartbeatLatencyMs: shard.heartbeatLatencyMs,
      }));
  }

  #healthy(shard: ShardState): boolean {
    if (shard.state === 'connected') return true;
    if (shard.state === 'failed') return false;
    return this.#clock.now() - shard.awaySince <= this.#graceMs;
  }

  #shard(shardId: number): ShardState {
    let shard = this.#shards.get(shardId);
    if (shard === undefined) {
      shard = { state: 'connecting', awaySince: this.#clock.now(), heartbeatLatencyMs: null };
      this.#shards.set(shardId, shard);
    }
    return shard;
  }
}
