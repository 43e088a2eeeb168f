/**
 * What every PostgreSQL fault row shares: the held long reply, and the row's end — wait for the
 * mentions, the next mention answered, then the measurement and the checks beyond every row's
 * columns (no delivered reply recorded `failed`, the liveness lock held again, nothing reached
 * `uncaughtException`, the process still running).
 */
import { createGate } from '../../support/llm-stand-in/gate.ts';
import type { Script } from '../../support/llm-stand-in/script.ts';
import type { PgCluster } from '../../support/pg-cluster.ts';
import type { LogLine } from '../../support/process-output.ts';
import { describeSeen, type RowOutcome } from './fault-row.ts';
import type { FaultWorld } from './fault-world.ts';
import { failedButDelivered, livenessLockHeldAgain, uncaughtLines } from './postgres-checks.ts';
import type { TriggerRecord } from './turn-accounting.ts';

export const FIRST_PART = 'Once upon a time there was a database that went away.';
export const SECOND_PART = 'It came back, and the story was written down after all.';
export const LONG_ANSWER = `${FIRST_PART}\n\n${SECOND_PART}`;

/** The provider fails (a 500 every time): the member gets a notice with Retry. */
export const SERVER_ERROR: Script = {
  steps: [
    { type: 'http-error', status: 500, body: JSON.stringify({ error: { message: 'down' } }) },
  ],
};

/** Whether the bot logged taking the mention into its channel's queue. */
export function accepted(world: FaultWorld, trigger: TriggerRecord): boolean {
  return world.harness.bot
    .logs()
    .some(
      (line) => line.json?.['msg'] === 'message accepted' && line.json['messageId'] === trigger.id,
    );
}

/** How long after SIGTERM the row lets the bot take to exit: the default grace and then some. */
export const SUPERVISOR_PATIENCE_MS = 30_000;

export const isHoldingLine = (line: LogLine) =>
  line.json?.['msg'] === 'database unreachable: holding a message';
export const isStoppedLine = (line: LogLine) => line.json?.['msg'] === 'stopped by a member';

/** The first request streams FIRST_PART, then waits for the gate before the rest. */
export function holdLongReply(world: FaultWorld) {
  const gate = createGate();
  world.harness.llm.enqueue({
    steps: [
      { type: 'text', text: `${FIRST_PART}\n\n` },
      { type: 'hold', gate },
      { type: 'text', text: SECOND_PART },
      { type: 'usage', inputTokens: 20, outputTokens: 20 },
      { type: 'finish', reason: 'stop' },
    ],
  });
  return gate;
}

/** The checks every PostgreSQL row adds, and the row's outcome. */
export async function concludeRow(options: {
  world: FaultWorld;
  server: PgCluster;
  triggers: TriggerRecord[];
  channelIds: string[];
  /** Lock re-takes logged before the fault; undefined when the bot was started again since. */
  retakesBefore: number | undefined;
  restoredAt: number;
  expected: Array<{ trigger: TriggerRecord; answer: string }>;
  /** Whether mentions waited for the server (their answers are timed); default true. */
  held?: boolean;
}): Promise<RowOutcome> {
  const { world, triggers } = options;
  // A channel is served in order (a coalesced batch replies to its last message): once the
  // last mention of each channel has its reply, every earlier one has had its turn.
  const lastOfChannel = options.channelIds.map((channelId) =>
    triggers.filter((trigger) => trigger.channelId === channelId).at(-1),
  );
  await world.until(() =>
    lastOfChannel.every((trigger) => trigger !== undefined && world.seen(trigger)),
  );
  const allAnsweredMs = Date.now() - options.restoredAt;
  const recoveryMs = await world.nextMentionAnswered(
    options.channelIds.at(-1) ?? '',
    options.restoredAt,
  );
  // After an answer the bot has logged its (new) instance id, the name of its lock.
  const lockHeld = await livenessLockHeldAgain({
    world,
    serverUrl: options.server.url,
    before: options.retakesBefore,
  });
  const measurement = await world.measure(triggers, options.channelIds, {
    modelTexts: [LONG_ANSWER],
  });
  const wronglyFailed = failedButDelivered({
    world,
    turns: measurement.turns,
    expected: options.expected,
  });
  const uncaught = uncaughtLines(world);
  return {
    runs: triggers.length,
    measurement,
    memberSaw: [
      describeSeen(measurement.verdicts),
      ...(options.held === false
        ? []
        : [`all answered ${(allAnsweredMs / 1000).toFixed(1)} s after the server was back`]),
      `liveness lock held again: ${lockHeld ? 'yes' : 'NO'}`,
    ].join('; '),
    recoveryMs,
    checks: [
      {
        name: `delivered replies recorded failed (${wronglyFailed.length})`,
        passed: wronglyFailed.length === 0,
      },
      { name: 'the liveness lock is held again (pg_locks)', passed: lockHeld },
      {
        name: `uncaught exceptions logged (${uncaught.join(' | ')})`,
        passed: uncaught.length === 0,
      },
      { name: 'the bot process is still running', passed: world.harness.bot.running },
    ],
  };
}
