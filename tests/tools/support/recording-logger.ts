import type { LogFunction, Logger } from '../../../src/core/logger.ts';

export interface LogEntry {
  level: string;
  message: string | undefined;
  fields: Record<string, unknown>;
}

/** A Logger that keeps every entry (with its child bindings) for a test to inspect. */
export function recordingLogger(
  entries: LogEntry[] = [],
  bindings: Record<string, unknown> = {},
): Logger & { entries: LogEntry[] } {
  const at =
    (level: string): LogFunction =>
    (first: object | string, message?: string) => {
      if (typeof first === 'string')
        entries.push({ level, message: first, fields: { ...bindings } });
      else entries.push({ level, message, fields: { ...bindings, ...first } });
    };
  return {
    entries,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: (more) => recordingLogger(entries, { ...bindings, ...more }),
  };
}
