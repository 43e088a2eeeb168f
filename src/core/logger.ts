/** The logging surface every layer receives (pino's Logger satisfies it). */
export interface LogFunction {
  (object: object, message?: string): void;
  (message: string): void;
}

export interface Logger {
  trace: LogFunction;
  debug: LogFunction;
  info: LogFunction;
  warn: LogFunction;
  error: LogFunction;
  fatal: LogFunction;
  child(bindings: Record<string, unknown>): Logger;
}

const noop: LogFunction = () => undefined;

/** A logger that drops everything; for tests and pure modules that log nothing. */
export const silentLogger: Logger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  fatal: noop,
  child: () => silentLogger,
};
