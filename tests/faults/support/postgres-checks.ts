/**
 * What the PostgreSQL rows check beyond every row's columns: the bot's liveness lock is held
 * again after the server came back (pg_locks), nothing reached `uncaughtException`, and no
 * reply the member saw in full was recorded `failed`.
 */
import pg from 'pg';
import type { FaultWorld } from './fault-world.ts';
import type { RecordedTurn, TriggerRecord } from './turn-accounting.ts';

/** The advisory-lock namespace of instance liveness (src/db/instance-liveness.ts, "tomo"). */
const LIVENESS_LOCK_CLASS = 0x746f6d6f;
const LIVENESS_APPLICATION = 'tomodachi-liveness';
const LOCK_TAKEN_AGAIN = 'liveness lock taken again';

/** How many times the bot has logged re-taking its liveness lock so far. */
export function lockRetakes(world: FaultWorld): number {
  return world.harness.bot.logs().filter((line) => line.json?.['msg'] === LOCK_TAKEN_AGAIN).length;
}

/**
 * Waits until the bot says it took its liveness lock again (after `before` such lines), then
 * asks the server: true when a liveness advisory lock is granted on the bot's database.
 */
export async function livenessLockHeldAgain(options: {
  world: FaultWorld;
  serverUrl: string;
  before: number;
}): Promise<boolean> {
  const { world } = options;
  const retaken = await world.until(() => lockRetakes(world) > options.before);
  if (!retaken) return false;
  const databaseUrl = world.harness.database.environment['DATABASE_URL'] ?? '';
  const databaseName = new URL(databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: options.serverUrl });
  await client.connect();
  try {
    const result = await client.query<{ held: number }>(
      `select count(*)::int as held
         from pg_locks lock
         join pg_stat_activity activity on activity.pid = lock.pid
        where lock.locktype = 'advisory' and lock.granted and lock.classid = $1
          and activity.application_name = $2 and activity.datname = $3`,
      [LIVENESS_LOCK_CLASS, LIVENESS_APPLICATION, databaseName],
    );
    return (result.rows[0]?.held ?? 0) > 0;
  } finally {
    await client.end();
  }
}

/** The bot's log lines of an uncaught exception or unhandled rejection (or a raw crash). */
export function uncaughtLines(world: FaultWorld): string[] {
  const fault = /uncaught|unhandled/i;
  return world.harness.bot
    .logs()
    .filter((line) =>
      line.json === undefined ? fault.test(line.text) : fault.test(String(line.json['msg'])),
    )
    .map((line) => line.text.slice(0, 300));
}

/**
 * Assistant records left `failed` although the member saw the reply: the channel shows the
 * trigger's scripted answer in full.
 */
export function failedButDelivered(options: {
  world: FaultWorld;
  turns: readonly RecordedTurn[];
  expected: ReadonlyArray<{ trigger: TriggerRecord; answer: string }>;
}): RecordedTurn[] {
  const compact = (text: string) => text.replace(/\s+/g, ' ').trim();
  const shown = (channelId: string) =>
    compact(
      options.world
        .botMessages(channelId)
        .map((message) => message.content)
        .join(' '),
    );
  return options.turns.filter(
    (turn) =>
      turn.role === 'assistant' &&
      turn.status === 'failed' &&
      options.expected.some(
        ({ trigger, answer }) =>
          trigger.id === turn.triggerMessageId &&
          shown(trigger.channelId).includes(compact(answer)),
      ),
  );
}
