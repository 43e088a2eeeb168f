import { systemClock, type Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { ProviderId, StreamCallOptions } from '../core/provider.ts';
import type { FirstByteDeadline } from './first-byte-timeout.ts';
import type { ModelCatalog } from './model-catalog.ts';

/** What every vendor adapter is built from. One adapter instance holds one SDK client. */
export interface VendorModelOptions {
  /** Undefined only for keyless OpenAI-compatible servers. */
  apiKey: string | undefined;
  /** Undefined: the vendor's own endpoint. */
  baseUrl: string | undefined;
  catalog: ModelCatalog;
  logger: Logger;
  /** Time allowed until the response starts (headers), not for the whole stream. */
  timeoutMs?: number;
  /** A transport other than the global fetch (benchmarks replay fixtures through it). */
  fetch?: typeof fetch;
  /** Times the first-byte deadline of a call (default: the system clock). */
  clock?: Clock;
}

/** The first-byte deadline a `stream` call asked for, on the adapter's clock. */
export function firstByteDeadline(
  provider: ProviderId,
  vendor: VendorModelOptions,
  call: StreamCallOptions | undefined,
): FirstByteDeadline | undefined {
  const timeoutMs = call?.firstByteTimeoutMs;
  if (timeoutMs === undefined) return undefined;
  return { timeoutMs, clock: vendor.clock ?? systemClock, provider };
}

/** Generous: reasoning models can think a while before the first byte. */
export const DEFAULT_TIMEOUT_MS = 120_000;
