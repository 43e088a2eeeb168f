import type { EventEmitter } from 'node:events';

/**
 * Resolves with `select`'s first defined answer, checked now and on every `event` of `emitter`;
 * rejects after `timeoutMs` (a ceiling for a busy machine, never a sleep).
 */
export function untilEvent<T>(
  emitter: EventEmitter,
  select: () => T | undefined,
  options: { timeoutMs: number; what: string },
): Promise<T> {
  const found = select();
  if (found !== undefined) return Promise.resolve(found);
  return new Promise<T>((resolve, reject) => {
    const check = (): void => {
      const value = select();
      if (value === undefined) return;
      cleanup();
      resolve(value);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ${options.what} within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      emitter.off('event', check);
    };
    emitter.on('event', check);
  });
}
