import type { Logger } from '../../core/logger.ts';
import type { LogOutput } from '../logging/log-output.ts';
import type { ProcessExit } from './process-exit.ts';

/** The process events the handlers attach to (`process` in production). */
export interface FaultSource {
  on(event: 'uncaughtException', listener: (error: Error) => void): unknown;
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
}

export interface ProcessFaultOptions {
  source: FaultSource;
  logger: Logger;
  output: LogOutput;
  exit: ProcessExit;
  /** Best-effort line for the operator when the log output itself is gone (stderr). */
  tellOperator: (line: string) => void;
}

/**
 * Last-resort nets. Every boundary of the bot catches its own failures, so reaching these is a
 * bug. An uncaught exception leaves the process in an unknown state: it is logged once and the
 * process exits 1, so Docker or systemd restart a clean one (start-up recovery answers what the
 * dead process left). An unhandled rejection is logged and the process goes on. A closed log
 * output ends the process quietly instead of looping on its own write errors.
 */
export function installProcessFaultHandlers(options: ProcessFaultOptions): void {
  const { source, logger, output, exit } = options;
  source.on('uncaughtException', (error) => {
    exit.fail('uncaught exception: exiting so the supervisor restarts a clean process', {
      err: error,
    });
  });
  source.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled rejection');
  });
  output.onClosed = (error) => {
    const code = (error as { code?: unknown }).code;
    options.tellOperator(
      `log output closed (${typeof code === 'string' ? code : error.message}): exiting\n`,
    );
    exit.fail('log output closed: exiting', { code });
  };
}
