import type { Gate } from './gate.ts';

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
