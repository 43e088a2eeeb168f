/**
 * The SQL statements bot processes sent so far, read from their own metrics: every statement a
 * pool client runs (BEGIN, COMMIT and the control bus's NOTIFY included) is one observation of
 * `tomodachi_db_query_duration_seconds`. The bot is one esbuild bundle with `pg` inside, so a
 * counter patched into node_modules' `pg` from outside (the way this was counted before) sees
 * nothing. The two dedicated connections (LISTEN, the liveness lock) run statements only when
 * they connect, never per turn.
 */
const QUERY_COUNT = 'tomodachi_db_query_duration_seconds_count';

export async function countedStatements(metricsPorts: readonly number[]): Promise<number> {
  const counts = await Promise.all(
    metricsPorts.map(async (port) => sumSamples(await metricsText(port), QUERY_COUNT)),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** Every sample of `name` (each label set), summed; 0 when the process has none yet. */
function sumSamples(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      total += Number(line.split(' ').at(-1)) || 0;
  }
  return total;
}

async function metricsText(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}
