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
const LOCK_TAKEN_AGAIN = 'liveness lock taken again';

/** How many times the bot has logged re-taking its liveness lock so far. */
export function lockRetakes(world: FaultWorld): number {
  return world.harness.bot.logs().filter((line) => line.json?.['msg'] === LOCK_TAKEN_AGAIN).length;
}

/** The bot's instance id, as it logged it when it connected (the name of its liveness lock). */
function instanceIdOf(world: FaultWorld): string | undefined {
  const connected = world.harness.bot
    .logs()
    .findLast((line) => line.json?.['msg'] === 'connected to Discord');
  const instanceId = connected?.json?.['instanceId'];
  return typeof instanceId === 'string' ? instanceId : undefined;
}

/**
 * Waits until the bot says it took its liveness lock again (after `before` such lines; a process
 * started since takes it at start: `before` undefined), then asks the server: true when the
 * advisory lock named after the bot's instance id is granted.
 */
export async function livenessLockHeldAgain(options: {
  world: FaultWorld;
  serverUrl: string;
  before: number | undefined;
}): Promise<boolean> {
  const { world, before } = options;
  const retaken = before === undefined || (await world.until(() => lockRetakes(world) > before));
  const instanceId = instanceIdOf(world);
  if (!retaken || instanceId === undefined) return false;
  const client = new pg.Client({ connectionString: options.serverUrl });
  await client.connect();
  try {
    // A two-key advisory lock shows its keys as classid and objid (unsigned), objsubid 2.
    const result = await client.query<{ held: number }>(
      `select count(*)::int as held from pg_locks
        where locktype = 'advisory' and granted and objsubid = 2
          and classid = $1::int::oid
          and objid::bigint = (hashtext($2)::bigint & 4294967295)`,
      [LIVENESS_LOCK_CLASS, instanceId],
    );
    return (result.rows[0]?.held ?? 0) === 1;
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
 * Triggers whose newest assistant record is `failed` although the member saw the reply: the
 * channel shows the trigger's scripted answer in full. (An older failed record a Retry answered
 * again is the fault's own, not wrong.)
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
  const newest = (triggerId: string) =>
    options.turns
      .filter((turn) => turn.role === 'assistant' && turn.triggerMessageId === triggerId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .at(-1);
  return options.expected.flatMap(({ trigger, answer }) => {
    const record = newest(trigger.id);
    const wrong = record?.status === 'failed' && shown(trigger.channelId).includes(compact(answer));
    return wrong && record !== undefined ? [record] : [];
  });
}
