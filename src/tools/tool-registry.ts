import { z } from 'zod';
import type { ToolSpec } from '../core/chat.ts';
import type { Clock } from '../core/clock.ts';
import { ToolError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { noMetrics, type BotMetrics } from '../core/metrics.ts';
import type { ToolCall, ToolContext, ToolExecutor, ToolResult } from '../core/tool.ts';
import { toolInputJsonSchema } from './json-schema.ts';
import { unavailableReason } from './tool-availability.ts';
import type { ToolCallRecorder, ToolCallStatus } from './tool-call-recorder.ts';
import { capText, summarizeArguments, summarizeText } from './tool-call-summary.ts';
import { TOOL_NAME_PATTERN, type ToolDefinition } from './tool-definition.ts';

/** A source of tools whose list changes at run time (an MCP server). */
export interface ToolSource {
  /** The tools it offers right now; a restarting server offers none. */
  tools(): readonly ToolDefinition[];
  /** Why a tool name of this source cannot run right now, or undefined when it is not its tool. */
  unavailableReason?(toolName: string): string | undefined;
}

export const TOOL_REGISTRY_DEFAULTS = {
  /** Per-call timeout unless a tool declares its own. */
  timeoutMs: 30_000,
  /** The longest result (in characters) handed back to the model. */
  maxResultChars: 16_000,
} as const;

export interface ToolRegistryOptions {
  clock: Clock;
  logger: Logger;
  /** Audits every call; omitted, calls are only logged. */
  recorder?: ToolCallRecorder;
  /** Counts and times every call by tool and status. */
  metrics?: BotMetrics | undefined;
  timeoutMs?: number;
  maxResultChars?: number;
}

type Outcome = { result: ToolResult; status: ToolCallStatus };

/**
 * The one place tools are listed and run, built-in and MCP alike. `execute` never throws: bad
 * arguments, unavailability, failures, timeouts and aborts all come back as a result the model
 * can read, and every call is timed, capped and recorded.
 */
export class ToolRegistry implements ToolExecutor {
  readonly #options: Required<Omit<ToolRegistryOptions, 'recorder' | 'metrics'>> &
    Pick<ToolRegistryOptions, 'recorder'> & { metrics: BotMetrics };
  readonly #builtIn = new Map<string, ToolDefinition>();
  readonly #sources: ToolSource[] = [];
  readonly #schemas = new WeakMap<ToolDefinition, ToolSpec['inputSchema']>();

  constructor(options: ToolRegistryOptions) {
    this.#options = {
      ...TOOL_REGISTRY_DEFAULTS,
      ...options,
      metrics: options.metrics ?? noMetrics,
    };
  }

  /** Adds a built-in tool. Names are unique and `__` is reserved for MCP namespacing. */
  register(...definitions: ToolDefinition[]): this {
    for (const definition of definitions) {
      if (!TOOL_NAME_PATTERN.test(definition.name) || definition.name.includes('__')) {
        throw new ToolError('name', `invalid tool name "${definition.name}"`);
      }
      if (this.#builtIn.has(definition.name)) {
        throw new ToolError('name', `tool "${definition.name}" is registered twice`);
      }
      this.#schemaOf(definition); // fail at start-up, not on the first turn
      this.#builtIn.set(definition.name, definition);
    }
    return this;
  }

  /** The built-in tools, for the switches of `/config tools`. */
  builtInTools(): readonly ToolDefinition[] {
    return [...this.#builtIn.values()];
  }

  addSource(source: ToolSource): this {
    this.#sources.push(source);
    return this;
  }

  /** The tools the model may call in this context, sorted by name for stable prompts. */
  specs(context: ToolContext): ToolSpec[] {
    return this.#all()
      .filter((tool) => unavailableReason(tool.name, tool.availability, context) === undefined)
      .map((tool) => ({
        name: tool.name,
        description:
          typeof tool.description === 'string' ? tool.description : tool.description(context),
        inputSchema: this.#schemaOf(tool),
      }))
      .sort((left, right) => left.name.localeCompare(right.name));
  }

  async execute(call: ToolCall, context: ToolContext, signal: AbortSignal): Promise<ToolResult> {
    const startedAt = this.#options.clock.now();
    const outcome = await this.#run(call, context, signal);
    const durationMs = Math.max(0, this.#options.clock.now() - startedAt);
    this.#options.logger.debug(
      { tool: call.name, status: outcome.status, durationMs },
      'tool call finished',
    );
    const tool = this.#find(call.name) === undefined ? 'unknown' : call.name;
    this.#options.metrics.toolCall({ tool, status: outcome.status, durationMs });
    await this.#record(call, context, { ...outcome, durationMs });
    return outcome.result;
  }

  async #run(call: ToolCall, context: ToolContext, signal: AbortSignal): Promise<Outcome> {
    const tool = this.#find(call.name);
    if (tool === undefined) {
      const reason = this.#sources
        .map((source) => source.unavailableReason?.(call.name))
        .find((text) => text !== undefined);
      return failure(reason ?? `There is no tool named "${call.name}".`);
    }
    const unavailable = unavailableReason(tool.name, tool.availability, context);
    if (unavailable !== undefined) {
      return failure(`The tool "${tool.name}" is not available here: ${unavailable}.`);
    }
    if (call.input === undefined) {
      return failure(`The arguments for "${tool.name}" were not valid JSON.`);
    }
    const parsed = tool.input.safeParse(call.input);
    if (!parsed.success) {
      return failure(`Invalid arguments for "${tool.name}":\n${z.prettifyError(parsed.error)}`);
    }
    if (signal.aborted) return { result: { ok: false, error: 'Cancelled.' }, status: 'aborted' };
    return this.#invoke(tool, parsed.data, { context, signal });
  }

  /** Runs the tool under its timeout and the caller's signal; a tool ignoring abort is left behind. */
  async #invoke(
    tool: ToolDefinition,
    input: unknown,
    options: { context: ToolContext; signal: AbortSignal },
  ): Promise<Outcome> {
    const timeoutMs = tool.timeoutMs ?? this.#options.timeoutMs;
    const controller = new AbortController();
    const timer = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort(options.signal.reason);
    options.signal.addEventListener('abort', onAbort, { once: true });
    this.#options.clock.sleep(timeoutMs, timer.signal).then(
      () => {
        timedOut = true;
        controller.abort(new ToolError('timeout', `timed out after ${timeoutMs} ms`));
      },
      () => undefined,
    );
    const aborted = new Promise<never>((_resolve, reject) => {
      controller.signal.addEventListener('abort', () => reject(new Error('aborted')), {
        once: true,
      });
    });
    try {
      // Through a promise, so a tool that throws synchronously is handled like one that rejects.
      const work = Promise.resolve().then(() =>
        tool.execute(input, { context: options.context, signal: controller.signal }),
      );
      work.catch(() => undefined); // settles after an abort: nobody is waiting any more
      const output = await Promise.race([work, aborted]);
      return {
        result: { ok: true, output: capText(output, this.#options.maxResultChars) },
        status: 'ok',
      };
    } catch (error) {
      if (timedOut) {
        return {
          result: {
            ok: false,
            error: `The tool "${tool.name}" did not finish within ${formatSeconds(timeoutMs)} and was stopped.`,
          },
          status: 'timeout',
        };
      }
      if (controller.signal.aborted) {
        return { result: { ok: false, error: 'Cancelled.' }, status: 'aborted' };
      }
      if (error instanceof ToolError) {
        return failure(capText(error.message, this.#options.maxResultChars));
      }
      this.#options.logger.error({ err: error, tool: tool.name }, 'tool failed unexpectedly');
      return failure(`The tool "${tool.name}" failed unexpectedly.`);
    } finally {
      timer.abort();
      options.signal.removeEventListener('abort', onAbort);
    }
  }

  #find(name: string): ToolDefinition | undefined {
    return (
      this.#builtIn.get(name) ??
      this.#sources.flatMap((source) => source.tools()).find((tool) => tool.name === name)
    );
  }

  #all(): ToolDefinition[] {
    return [...this.#builtIn.values(), ...this.#sources.flatMap((source) => source.tools())];
  }

  #schemaOf(tool: ToolDefinition): ToolSpec['inputSchema'] {
    let schema = tool.jsonSchema ?? this.#schemas.get(tool);
    if (schema === undefined) {
      schema = toolInputJsonSchema(tool.input);
      this.#schemas.set(tool, schema);
    }
    return schema;
  }

  async #record(
    call: ToolCall,
    context: ToolContext,
    outcome: Outcome & { durationMs: number },
  ): Promise<void> {
    const recorder = this.#options.recorder;
    if (recorder === undefined) return;
    const result = outcome.result;
    try {
      await recorder.record({
        turnId: context.turnId,
        scopeId: context.scopeId,
        toolName: call.name,
        status: outcome.status,
        durationMs: outcome.durationMs,
        argumentSummary: summarizeArguments(call.input),
        resultSummary: summarizeText(result.ok ? result.output : result.error),
      });
    } catch (error) {
      // The audit is best effort: a failed insert must not turn a good result into a failure.
      this.#options.logger.warn({ err: error, tool: call.name }, 'could not record a tool call');
    }
  }
}

function failure(error: string): Outcome {
  return { result: { ok: false, error }, status: 'error' };
}

function formatSeconds(milliseconds: number): string {
  const seconds = milliseconds / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
