import type { Clock } from '../../core/clock.ts';
import type { BotMetrics, StopKind } from '../../core/metrics.ts';
import { isStopRequest } from '../../stream/stop/stop-registry.ts';

/**
 * Times a live turn's stop: from the moment its stop signal fires (a stop phrase, `/stop`, the
 * Stop button) to the moment the stopped stream has ended. Call the returned function when the
 * stream is over; a turn that was not stopped reports nothing.
 */
export function timeStop(options: {
  signal: AbortSignal;
  clock: Clock;
  metrics: BotMetrics;
}): () => void {
  const { signal, clock, metrics } = options;
  let stopped: { kind: StopKind; at: number } | undefined;
  const onAbort = (): void => {
    const kind = stopKindOf(signal.reason);
    if (kind !== undefined) stopped = { kind, at: clock.now() };
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return () => {
    signal.removeEventListener('abort', onAbort);
    if (stopped === undefined) return;
    metrics.stopLatency({ kind: stopped.kind, milliseconds: clock.now() - stopped.at });
  };
}

function stopKindOf(reason: unknown): StopKind | undefined {
  if (isStopRequest(reason)) return 'phrase';
  const kind = (reason as { kind?: unknown } | undefined)?.kind;
  return kind === 'command-stop' ? 'command' : undefined;
}
