const WINDOW_MS = 60_000;

/**
 * Turns per member per minute, per scope (a sliding window). Protects the server owner's key
 * from one member spamming the bot. In memory: a limit per process is the right granularity
 * for a safety valve, and it costs no database round trip.
 */
export class MemberRateLimiter {
  private readonly windows = new Map<string, number[]>();
  private sweeps = 0;

  /** Records a turn and returns true if the member is within `perMinute`; false otherwise. */
  tryTake(options: { scopeId: string; memberId: string; perMinute: number; now: number }): boolean {
    if (options.perMinute <= 0) return true;
    const key = `${options.scopeId}:${options.memberId}`;
    const since = options.now - WINDOW_MS;
    const window = (this.windows.get(key) ?? []).filter((at) => at > since);
    const allowed = window.length < options.perMinute;
    if (allowed) window.push(options.now);
    this.windows.set(key, window);
    this.sweepOccasionally(since);
    return allowed;
  }

  /** Milliseconds until the member may start another turn (0 when they may now). */
  retryAfterMs(options: {
    scopeId: string;
    memberId: string;
    perMinute: number;
    now: number;
  }): number {
    const window = this.windows.get(`${options.scopeId}:${options.memberId}`) ?? [];
    const live = window.filter((at) => at > options.now - WINDOW_MS);
    if (live.length < options.perMinute) return 0;
    const oldest = live[live.length - options.perMinute] ?? options.now;
    return Math.max(0, oldest + WINDOW_MS - options.now);
  }

  private sweepOccasionally(since: number): void {
    this.sweeps += 1;
    if (this.sweeps % 1000 !== 0) return;
    for (const [key, window] of this.windows) {
      if (window.every((at) => at <= since)) this.windows.delete(key);
    }
  }
}
