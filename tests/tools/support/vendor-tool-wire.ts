/**
 * How each vendor's request body carries the tools on offer and a tool result, read from what
 * the LLM stand-in received. The expected shapes are the vendors' documented formats, written
 * out here independently of src/providers, so a test can tell a wrong mapping from a right one.
 */
import type { ToolResultPart } from '../../../src/core/chat.ts';
import type { ProviderId } from '../../../src/core/provider.ts';

type JsonObject = Record<string, unknown>;

export interface VendorToolWire {
  /** The names of the tools the request offered the model, in order. */
  offeredToolNames(body: unknown): string[];
  /** The entry that carries the result of `callId` (undefined when the request has none). */
  toolResultIn(body: unknown, callId: string): unknown;
  /** That entry as the vendor documents it for `result`. */
  expectedToolResult(result: ToolResultPart): unknown;
}

export const VENDOR_WIRES: Record<ProviderId, VendorToolWire> = {
  // Chat Completions: `tools[].function`; a result is a `role: "tool"` message. The format has
  // no error flag, so an error result is marked in its text.
  openai: {
    offeredToolNames: (body) =>
      list(object(body)['tools']).map((tool) => String(object(object(tool)['function'])['name'])),
    toolResultIn: (body, callId) =>
      list(object(body)['messages']).find(
        (message) =>
          object(message)['role'] === 'tool' && object(message)['tool_call_id'] === callId,
      ),
    expectedToolResult: (result) => ({
      role: 'tool',
      tool_call_id: result.callId,
      content: result.isError ? `Error: ${result.output}` : result.output,
    }),
  },
  // Messages API: `tools[].name`; a result is a `tool_result` block in a user turn.
  anthropic: {
    offeredToolNames: (body) =>
      list(object(body)['tools']).map((tool) => String(object(tool)['name'])),
    toolResultIn: (body, callId) =>
      list(object(body)['messages'])
        .flatMap((message) => list(object(message)['content']))
        .find(
          (block) =>
            object(block)['type'] === 'tool_result' && object(block)['tool_use_id'] === callId,
        ),
    expectedToolResult: (result) => ({
      type: 'tool_result',
      tool_use_id: result.callId,
      content: result.output,
      is_error: result.isError,
    }),
  },
  // Gemini: `tools[].functionDeclarations[]`; a result is a `functionResponse` part whose
  // response holds `output`, or `error` for a failure.
  google: {
    offeredToolNames: (body) =>
      list(object(body)['tools'])
        .flatMap((tool) => list(object(tool)['functionDeclarations']))
        .map((declaration) => String(object(declaration)['name'])),
    toolResultIn: (body, callId) =>
      list(object(body)['contents'])
        .flatMap((content) => list(object(content)['parts']))
        .find((part) => object(object(part)['functionResponse'])['id'] === callId),
    expectedToolResult: (result) => ({
      functionResponse: {
        id: result.callId,
        name: result.name,
        response: result.isError ? { error: result.output } : { output: result.output },
      },
    }),
  },
};

function object(value: unknown): JsonObject {
  return typeof value === 'object' && value !== null ? (value as JsonObject) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
