import type { Clock } from '../core/clock.ts';

/** A gateway that has been away longer than this makes /healthz answer 503. */
export const GATEWAY_DOWN_GRACE_MS = 30_000;

export type GatewayState = 'connecting' | 'connected' | 'disconnected' | 'failed';

/**
 * The gateway's health for /healthz: connected, or away for at most the grace period (a resume
 * takes a second or two and should not make a supervisor restart the process). A fatal close
 * is unhealthy at once. The process starts "connecting", which counts as away since start.
 */
export class GatewayHealth {
  readonly #clock: Clock;
  readonly #graceMs: number;
  #state: GatewayState = 'connecting';
  #awaySince: number;

  constructor(options: { clock: Clock; graceMs?: number }) {
    this.#clock = options.clock;
    this.#graceMs = options.graceMs ?? GATEWAY_DOWN_GRACE_MS;
    this.#awaySince = options.clock.now();
  }

  get state(): GatewayState {
    return this.#state;
  }

  connected(): void {
    if (this.#state === 'failed') return;
    this.#state = 'connected';
  }

  disconnected(): void {
    if (this.#state === 'failed' || this.#state === 'disconnected') return;
    if (this.#state === 'connected') this.#awaySince = this.#clock.now();
    this.#state = 'disconnected';
  }

  /** Discord will not take this connection back (a fatal close): unhealthy for good. */
  failed(): void {
    this.#state = 'failed';
  }

  healthy(): boolean {
    if (this.#state === 'connected') return true;
    if (this.#state === 'failed') return false;
    return this.#clock.now() - this.#awaySince <= this.#graceMs;
  }
}
