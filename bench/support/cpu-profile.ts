/**
 * An opt-in CPU profile of one stretch of a bench: with BENCH_CPU_PROFILE=<file> set, `around`
 * records V8's sampling profile while `work` runs and writes it as a .cpuprofile (open it in
 * Chrome DevTools, or summarize it with `node bench/support/cpu-profile-summary.ts <file>`).
 * Unset, it only runs `work`.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

export async function around<T>(work: () => Promise<T>): Promise<T> {
  const file = process.env['BENCH_CPU_PROFILE'];
  if (!file) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}
