import { ProviderError, type ProviderErrorKind } from '../core/errors.ts';
import type { ProviderId } from '../core/provider.ts';

/** Socket-level error codes that mean "the network failed", not "the provider said no". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Classifies failures below the HTTP layer, the same for every SDK: refused or reset
 * connections, a body cut off mid-stream (undici's "terminated"), timeouts, and a stream that
 * is not valid SSE/JSON. Undefined when the error is not one of these.
 */
export function classifyTransportError(
  error: unknown,
  provider: ProviderId,
): ProviderError | undefined {
  const kind = transportKind(error);
  if (kind === undefined) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError({ kind, message: `${provider}: ${message}`, provider, cause: error });
}

function transportKind(error: unknown): ProviderErrorKind | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return 'timeout';
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'network';
    if (current.name === 'TimeoutError') return 'timeout';
    if (current instanceof SyntaxError) return 'network';
    if (/^(terminated|fetch failed|other side closed)$/i.test(current.message)) return 'network';
    current = current.cause;
  }
  return undefined;
}
