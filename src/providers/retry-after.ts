/**
 * How long a provider asked us to wait, from `retry-after-ms` (OpenAI), `retry-after` (seconds
 * or an HTTP date) or a Google RetryInfo `retryDelay` ("13s", "0.5s").
 */

interface HeaderSource {
  get(name: string): string | null;
}

/** Upper bound on a believable delay; anything longer is treated as absent. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export function retryAfterFromHeaders(
  headers: HeaderSource | undefined,
  now: number = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return bounded(milliseconds);
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return bounded(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : bounded(Math.max(0, date - now));
}

/** Parses a protobuf Duration in JSON form ("13s", "1.5s"). */
export function retryAfterFromDuration(duration: unknown): number | undefined {
  if (typeof duration !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(duration.trim());
  return match?.[1] === undefined ? undefined : bounded(Number(match[1]) * 1000);
}

function bounded(milliseconds: number): number | undefined {
  return milliseconds <= MAX_RETRY_AFTER_MS ? Math.ceil(milliseconds) : undefined;
}
