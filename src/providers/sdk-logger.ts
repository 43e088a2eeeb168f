import type { Logger } from '../core/logger.ts';

/** The logger shape the OpenAI and Anthropic SDKs accept (console-like). */
export interface SdkLogger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

/**
 * Routes an SDK's own log lines into our logger (so they are JSON, redacted and levelled) instead
 * of the console. SDK "errors" are failures we already classify and report, hence `warn`.
 */
export function sdkLogger(logger: Logger): SdkLogger {
  const child = logger.child({ component: 'provider-sdk' });
  const forward =
    (level: 'warn' | 'debug') =>
    (message: string, ...rest: unknown[]): void => {
      child[level]({ details: rest.length > 0 ? rest : undefined }, message);
    };
  return {
    error: forward('warn'),
    warn: forward('warn'),
    info: forward('debug'),
    debug: forward('debug'),
  };
}
