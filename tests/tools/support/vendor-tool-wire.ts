/**
 * How each vendor's request body carries the tools on offer and a tool result, read from what
 * the LLM stand-in received. The expected shapes are the vendors' documented formats, written
 * out here independently of src/providers, so a test can tell a wrong mapping from a right one.
 */
import type { ToolResultPart } from '../../../src/core/chat.ts';
import type { ProviderId } from '../../../src/core/provider.ts';
import { asArray, asObject } from '../../support/llm-stand-in/recorded-request.ts';

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
      asArray(asObject(body)['tools']).map((tool) =>
        String(asObject(asObject(tool)['function'])['name']),
      ),
    toolResultIn: (body, callId) =>
      asArray(asObject(body)['messages']).find(
        (message) =>
          asObject(message)['role'] === 'tool' && asObject(message)['tool_call_id'] === callId,
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
      asArray(asObject(body)['tools']).map((tool) => String(asObject(tool)['name'])),
    toolResultIn: (body, callId) =>
      asArray(asObject(body)['messages'])
        .flatMap((message) => asArray(asObject(message)['content']))
        .find(
          (block) =>
            asObject(block)['type'] === 'tool_result' && asObject(block)['tool_use_id'] === callId,
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
      asArray(asObject(body)['tools'])
        .flatMap((tool) => asArray(asObject(tool)['functionDeclarations']))
        .map((declaration) => String(asObject(declaration)['name'])),
    toolResultIn: (body, callId) =>
      asArray(asObject(body)['contents'])
        .flatMap((content) => asArray(asObject(content)['parts']))
        .find((part) => asObject(asObject(part)['functionResponse'])['id'] === callId),
    expectedToolResult: (result) => ({
      functionResponse: {
        id: result.callId,
        name: result.name,
        response: result.isError ? { error: result.output } : { output: result.output },
      },
    }),
  },
};
