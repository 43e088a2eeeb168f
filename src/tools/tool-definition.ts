import type { z } from 'zod';
import type { JsonSchema } from '../core/chat.ts';
import type { ToolContext } from '../core/tool.ts';

/** Vendors accept tool names matching this (OpenAI, Anthropic and Gemini alike). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * When a tool is offered to the model. Every rule must hold; a tool that fails one is neither
 * listed in the specs nor runnable.
 */
export interface ToolAvailability {
  /** Guild channels only, DMs only, or both (the default). */
  where?: 'guild' | 'dm' | 'anywhere';
  /** The scope feature flag that switches the tool (default `tools.<name>`). */
  flag?: string;
  /** Whether the tool is on in a scope whose flags do not mention it. */
  enabledByDefault: boolean;
  /** Discord permission bits the requesting member must hold (guilds; Administrator holds all). */
  requiredMemberPermissions?: bigint;
  /** Capabilities the model in use must have (see ToolContext.providerCapabilities). */
  requiredCapabilities?: readonly string[];
}

/** What a tool receives besides its input. */
export interface ToolInvocation {
  context: ToolContext;
  /** Aborted on stop, on the per-call timeout and at shutdown. Pass it to every I/O call. */
  signal: AbortSignal;
}

/**
 * One tool: built in or discovered from an MCP server. `execute` returns (or resolves to) the
 * text the model reads; a failure the model should see is a thrown ToolError (its message is the result).
 */
export interface ToolDefinition<Input = unknown> {
  name: string;
  /**
   * What the model reads to decide when to call it; a function when it depends on where the
   * tool runs (a guild or a DM), read for each request's context.
   */
  description: string | ((context: ToolContext) => string);
  /** Validates the model's arguments (`safeParse`); the JSON Schema is derived from it. */
  input: z.ZodType<Input>;
  /** The schema shown to the model when it is not derived from `input` (MCP tools). */
  jsonSchema?: JsonSchema;
  availability: ToolAvailability;
  /** Overrides the registry's per-call timeout; undefined: the registry's. */
  timeoutMs?: number | undefined;
  execute(input: Input, invocation: ToolInvocation): Promise<string> | string;
}

/** Declares a tool with its input type inferred from the zod schema. */
export function defineTool<Schema extends z.ZodType>(
  definition: ToolDefinition<z.output<Schema>> & { input: Schema },
): ToolDefinition {
  return definition;
}
