import type { Gate } from './gate.ts';
import type { ScriptStep, StandInVendor } from './script.ts';
import { vendorError } from './vendor-errors.ts';

/** One thing the server does while streaming: write SSE text, wait on a gate, or hang up. */
export type Frame =
  { type: 'data'; text: string } | { type: 'hold'; gate: Gate } | { type: 'drop' };

/** What a vendor renderer decided the HTTP response is. */
export type RenderedResponse =
  | { type: 'error'; status: number; headers: Record<string, string>; body: string }
  | { type: 'stream'; frames: Frame[] };

export const MALFORMED_EVENT = 'data: {"this is": not json\n\n';

export function dataFrame(text: string): Frame {
  return { type: 'data', text };
}

/**
 * A script whose first step fails answers with an HTTP error instead of a stream: the body a
 * raw `http-error` step gives, or the vendor's own error for a `fail` (a content filter is
 * reported inside the stream instead).
 */
export function earlyError(
  vendor: StandInVendor,
  step: ScriptStep,
  model: string,
): RenderedResponse | undefined {
  if (step.type === 'http-error') {
    return { type: 'error', status: step.status, headers: step.headers ?? {}, body: step.body };
  }
  if (step.type !== 'fail' || step.kind === 'content_filter') return undefined;
  const error = vendorError(vendor, step.kind, {
    model,
    retryAfterSeconds: step.retryAfterSeconds,
  });
  return { type: 'error', ...error };
}
