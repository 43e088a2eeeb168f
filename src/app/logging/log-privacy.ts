import type { LogFormat } from '../config/config.ts';

/** How deep a chain of causes is followed. */
const MAX_CAUSES = 5;
const QUERY_PARAMETERS = /\nparams: [\s\S]*$/;
const HIDDEN_PARAMETERS = '\nparams: [hidden]';

/**
 * A failed query's error (drizzle's DrizzleQueryError) carries the query's parameters in its
 * message, its stack and a `params` field: members' words when the query stored a message.
 * Logged errors keep the query text (the statement shape, for the operator) but not the values.
 * Returns the error itself when there is nothing to hide.
 */
export function withoutQueryParameters(error: unknown, depth = 0): unknown {
  if (typeof error !== 'object' || error === null || depth > MAX_CAUSES) return error;
  const original = error as { message?: unknown; stack?: unknown; cause?: unknown };
  const cause = withoutQueryParameters(original.cause, depth + 1);
  const hasParameters =
    'params' in error ||
    (typeof original.message === 'string' && QUERY_PARAMETERS.test(original.message));
  if (!hasParameters && cause === original.cause) return error;
  const copy = Object.assign(
    Object.create(Object.getPrototypeOf(error) as object) as object,
    error,
  );
  delete (copy as { params?: unknown }).params;
  const message = typeof original.message === 'string' ? original.message : '';
  const hidden = message.replace(QUERY_PARAMETERS, HIDDEN_PARAMETERS);
  Object.defineProperties(copy, {
    message: { value: hidden, enumerable: false, writable: true, configurable: true },
    stack: {
      value:
        typeof original.stack === 'string' ? original.stack.replace(message, hidden) : undefined,
      enumerable: false,
      writable: true,
      configurable: true,
    },
    cause: { value: cause, enumerable: false, writable: true, configurable: true },
  });
  return copy;
}

/** LOG_FORMAT when set; otherwise pretty on a terminal and JSON for log collectors. */
export function prettyLogs(format: LogFormat | undefined, isTerminal: boolean): boolean {
  return format === undefined ? isTerminal : format === 'pretty';
}
