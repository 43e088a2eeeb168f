import type { ToolCallPart, ToolResultPart } from '../../core/chat.ts';
import { type Clock, WAIT_CANCELLED } from '../../core/clock.ts';
import { ToolError } from '../../core/errors.ts';
import type { ToolContext, ToolExecutor, ToolResult } from '../../core/tool.ts';
import type { ToolCallMetric, ToolCallOutcome } from './turn-metrics.ts';

/** Live progress of a turn, for status lines and logs. */
export type TurnEvent =
  | { type: 'tool-start'; callId: string; name: string; iteration: number }
  | {
      type: 'tool-end';
      callId: string;
      name: string;
      iteration: number;
      outcome: ToolCallOutcome;
      durationMs: number;
    };

export interface ToolRoundOptions {
  executor: ToolExecutor;
  context: ToolContext;
  calls: readonly ToolCallPart[];
  /** The turn's signal: a stop aborts every call in flight. */
  signal: AbortSignal;
  clock: Clock;
  timeoutMs: number;
  iteration: number;
  onEvent: (event: TurnEvent) => void;
}

export interface ToolRoundResult {
  results: ToolResultPart[];
  metrics: ToolCallMetric[];
}

/**
 * Runs one round of tool calls concurrently. Every call ends as a result the model can read —
 * success, the tool's error, invalid arguments, a timeout — never as a throw. A stop aborts the
 * calls in flight through their signal and the round answers at once, without waiting for a
 * tool that ignores its signal.
 */
export async function runToolRound(options: ToolRoundOptions): Promise<ToolRoundResult> {
  const settled = await Promise.all(options.calls.map((call) => runToolCall(call, options)));
  return {
    results: settled.map((entry) => entry.result),
    metrics: settled.map((entry) => entry.metric),
  };
}

async function runToolCall(
  call: ToolCallPart,
  options: ToolRoundOptions,
): Promise<{ result: ToolResultPart; metric: ToolCallMetric }> {
  const { clock, iteration, onEvent } = options;
  const startedAt = clock.now();
  onEvent({ type: 'tool-start', callId: call.id, name: call.name, iteration });
  const { outcome, text } =
    call.input === undefined
      ? {
          outcome: 'error' as const,
          text: 'The arguments were not valid JSON; call the tool again with valid JSON.',
        }
      : await execute(call, options);
  const durationMs = clock.now() - startedAt;
  onEvent({ type: 'tool-end', callId: call.id, name: call.name, iteration, outcome, durationMs });
  return {
    result: {
      type: 'tool-result',
      callId: call.id,
      name: call.name,
      output: text,
      isError: outcome !== 'ok',
    },
    metric: { name: call.name, durationMs, outcome },
  };
}

async function execute(
  call: ToolCallPart,
  options: ToolRoundOptions,
): Promise<{ outcome: ToolCallOutcome; text: string }> {
  const { executor, context, signal, clock, timeoutMs } = options;
  const controller = new AbortController();
  const timer = new AbortController();
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) return { outcome: 'aborted', text: 'The reply was stopped.' };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const running = Promise.resolve()
      .then(() =>
        executor.execute(
          { id: call.id, name: call.name, input: call.input },
          context,
          controller.signal,
        ),
      )
      .then(
        (result: ToolResult) =>
          result.ok
            ? { outcome: 'ok' as const, text: result.output }
            : { outcome: 'error' as const, text: result.error },
        (error: unknown) =>
          controller.signal.aborted
            ? { outcome: 'aborted' as const, text: 'The reply was stopped.' }
            : {
                outcome: 'error' as const,
                // A ToolError's message is written for the model; anything else may hold internals.
                text: error instanceof ToolError ? error.message : 'The tool failed unexpectedly.',
              },
      );
    const timedOut = clock.sleep(timeoutMs, timer.signal).then(
      () => ({
        outcome: 'timeout' as const,
        text: `The tool did not answer within ${Math.round(timeoutMs / 1000)} s.`,
      }),
      () => new Promise<never>(() => undefined),
    );
    const stopped = new Promise<{ outcome: 'aborted'; text: string }>((resolve) => {
      controller.signal.addEventListener(
        'abort',
        () => resolve({ outcome: 'aborted', text: 'The reply was stopped.' }),
        {
          once: true,
        },
      );
    });
    return await Promise.race([running, timedOut, stopped]);
  } finally {
    timer.abort(WAIT_CANCELLED);
    controller.abort(); // a timed-out tool is told to stop; a finished one does not care
    signal.removeEventListener('abort', onAbort);
  }
}
