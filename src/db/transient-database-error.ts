/**
 * Whether a database failure is an outage that may pass (the server restarting, the network
 * dropping) rather than a fault of the query. The one place that reads driver errors for this:
 * node-postgres reports a dropped connection as a plain Error with only a message, so those
 * few messages are matched here and nowhere else.
 */

/** Socket-level failures of reaching the server. */
const TRANSIENT_SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away or not ready yet: admin_shutdown (57P01, `pg_ctl stop -m
 * fast`), crash_shutdown (57P02), cannot_connect_now (57P03, starting up or shutting down),
 * too_many_connections (53300). Class 08 (connection exception) is matched as a class.
 */
const TRANSIENT_SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres's own messages for a connection lost or never made (pg 8, pg-pool 3). */
const TRANSIENT_DRIVER_MESSAGES: readonly RegExp[] = [
  /^Connection terminated unexpectedly$/,
  /^Connection terminated$/,
  /^Connection terminated due to connection timeout$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^timeout exceeded when trying to connect$/,
];

/** True when `error` (or anything in its cause chain) is a transient connection failure. */
export function isTransientDatabaseError(error: unknown): boolean {
  return someInChain(error, isTransientItself, 0);
}

function isTransientItself(error: object): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (TRANSIENT_SOCKET_CODES.has(code) || TRANSIENT_SQLSTATES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  const message = (error as { message?: unknown }).message;
  return (
    typeof message === 'string' && TRANSIENT_DRIVER_MESSAGES.some((known) => known.test(message))
  );
}

/** Walks `cause` (drizzle wraps driver errors) and AggregateError's `errors` (dual-stack connects). */
function someInChain(error: unknown, test: (error: object) => boolean, depth: number): boolean {
  if (typeof error !== 'object' || error === null || depth > 8) return false;
  if (test(error)) return true;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (Array.isArray(errors) && errors.some((inner) => someInChain(inner, test, depth + 1))) {
    return true;
  }
  return someInChain(cause, test, depth + 1);
}
