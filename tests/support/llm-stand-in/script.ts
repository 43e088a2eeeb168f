/**
 * What the LLM stand-in answers, written once and rendered faithfully in each vendor's wire
 * format. A script is a list of vendor-neutral steps; `openai-wire.ts`, `anthropic-wire.ts` and
 * `gemini-wire.ts` turn them into that vendor's status, headers and SSE events.
 */
import type { Gate } from './gate.ts';

export type StandInVendor = 'openai' | 'anthropic' | 'google';

export type ScriptFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * The failures the stand-in can produce with a vendor-faithful status, body and headers.
 * `content_filter` is a 200 stream where the vendor blocks or refuses (Gemini blockReason,
 * OpenAI finish_reason content_filter, Anthropic stop_reason refusal).
 */
export type ScriptFailureKind =
  | 'auth'
  | 'rate_limit'
  | 'quota'
  | 'overloaded'
  | 'timeout'
  | 'model'
  | 'context_overflow'
  | 'content_filter'
  | 'bad_request';

export interface ScriptToolCall {
  id: string;
  name: string;
  /** The complete JSON argument text. */
  arguments: string;
  /** How many pieces the arguments are streamed in (OpenAI, Anthropic). Default 3. */
  fragments?: number;
  /** Gemini thoughtSignature on this functionCall part. */
  signature?: string;
}

export type ScriptStep =
  /** One text delta, sent as is (split words and characters by using several steps). */
  | { type: 'text'; text: string }
  /** One reasoning delta (Gemini thought part, Anthropic thinking_delta, OpenAI `reasoning_content`). */
  | { type: 'reasoning'; text: string }
  /** Closes a reasoning block, signed (Anthropic signature_delta, Gemini thoughtSignature). */
  | { type: 'reasoning-end'; signature?: string }
  /** An Anthropic redacted_thinking block (other vendors ignore it). */
  | { type: 'redacted-reasoning'; data: string }
  /** One or several (parallel) tool calls; OpenAI interleaves their argument fragments. */
  | { type: 'tool-calls'; calls: ScriptToolCall[] }
  | {
      type: 'usage';
      inputTokens: number;
      outputTokens: number;
      cachedInputTokens?: number;
      reasoningTokens?: number;
    }
  | { type: 'finish'; reason: ScriptFinishReason }
  /** A vendor-faithful failure; an HTTP error when first, a mid-stream error event otherwise. */
  | { type: 'fail'; kind: ScriptFailureKind; retryAfterSeconds?: number }
  /** Any HTTP error status with a literal body and headers (must be the first step). */
  | { type: 'http-error'; status: number; body: string; headers?: Record<string, string> }
  /** Destroys the socket mid-stream. */
  | { type: 'drop' }
  /** An SSE data line that is not JSON. */
  | { type: 'malformed' }
  /** Raw bytes written to the stream as they are. */
  | { type: 'raw'; data: string }
  /** Waits until the gate is released (or the client goes away). */
  | { type: 'hold'; gate: Gate }
  /**
   * A hung provider: not even the status line is sent, until the client gives up (must be the
   * only step). A `hold` first, by contrast, starts the response and then goes silent.
   */
  | { type: 'no-response' };

export interface Script {
  steps: ScriptStep[];
  /** Real milliseconds between events, for end-to-end realism. Default: the stand-in's. */
  eventDelayMs?: number;
  /** Write the body in slices of this many bytes, so multi-byte characters straddle reads. */
  chunkBytes?: number;
}

/** A plain successful answer: the text split into the given deltas, then usage and stop. */
export function textScript(...deltas: string[]): Script {
  return {
    steps: [
      ...deltas.map((text): ScriptStep => ({ type: 'text', text })),
      { type: 'usage', inputTokens: 12, outputTokens: deltas.length },
      { type: 'finish', reason: 'stop' },
    ],
  };
}

/** Splits `text` into `count` roughly equal pieces (used for argument fragments). */
export function splitIntoPieces(text: string, count: number): string[] {
  const pieces: string[] = [];
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, count)));
  for (let start = 0; start < text.length; start += size)
    pieces.push(text.slice(start, start + size));
  return pieces.length === 0 ? [''] : pieces;
}
