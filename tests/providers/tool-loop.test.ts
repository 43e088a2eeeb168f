/**
 * A two-step tool loop per vendor: the model calls a tool (after signed thinking), the result
 * goes back in the vendor's format with the signatures intact, and the model answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest, ToolSpec } from '../../src/core/chat.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import type { StandInVendor } from '../support/llm-stand-in/script.ts';
import { ADAPTERS, assistantMessageOf, collect, textOf } from './support/adapters.ts';

let standIn: LlmStandIn;
beforeAll(async () => {
  standIn = await LlmStandIn.start();
});
afterAll(async () => {
  await standIn.close();
});

const weatherTool: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string', description: 'City name' } },
    required: ['city'],
    additionalProperties: false,
  },
};

/** What the second request must carry: the call (with its signature) and the result. */
const SECOND_REQUEST_HISTORY: Record<StandInVendor, (body: Record<string, unknown>) => void> = {
  openai: (body) => {
    expect(body['messages']).toEqual([
      { role: 'system', content: 'You are Tomo, a friendly companion.' },
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18°C, sunny' },
    ]);
  },
  anthropic: (body) => {
    expect(body['messages']).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I need the weather.', signature: 'sig-thinking-1' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '18°C, sunny', is_error: false },
        ],
      },
    ]);
  },
  google: (body) => {
    expect(body['contents']).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      {
        role: 'model',
        parts: [
          { text: 'I need the weather.', thought: true, thoughtSignature: 'sig-thinking-1' },
          {
            functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: 'sig-call-1',
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call_1',
              name: 'get_weather',
              response: { output: '18°C, sunny' },
            },
          },
        ],
      },
    ]);
  },
};

describe.each(ADAPTERS)(
  'a two-step tool loop with the $vendor adapter',
  ({ vendor, model: modelId, create }) => {
    it('calls the tool, sends the result back in the vendor format, and gets the final answer', async () => {
      const model = create(standIn);
      const messages: ChatMessage[] = [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      ];
      const request = (): ChatRequest => ({
        model: modelId,
        system: 'You are Tomo, a friendly companion.',
        messages: [...messages],
        tools: [weatherTool],
      });

      standIn.enqueue({
        steps: [
          { type: 'reasoning', text: 'I need ' },
          { type: 'reasoning', text: 'the weather.' },
          { type: 'reasoning-end', signature: 'sig-thinking-1' },
          {
            type: 'tool-calls',
            calls: [
              {
                id: 'call_1',
                name: 'get_weather',
                arguments: '{"city":"Paris"}',
                signature: 'sig-call-1',
              },
            ],
          },
          { type: 'finish', reason: 'tool_calls' },
        ],
      });
      const first = await collect(model, request());
      expect(first.parts.at(-1)).toMatchObject({ type: 'step-end', finishReason: 'tool_calls' });
      messages.push(assistantMessageOf(first.parts), {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'call_1',
            name: 'get_weather',
            output: '18°C, sunny',
            isError: false,
          },
        ],
      });

      standIn.enqueue({
        steps: [
          { type: 'text', text: 'It is 18°C ' },
          { type: 'text', text: 'and sunny in Paris.' },
          { type: 'finish', reason: 'stop' },
        ],
      });
      const second = await collect(model, request());
      expect(textOf(second.parts)).toBe('It is 18°C and sunny in Paris.');
      expect(second.parts.at(-1)).toMatchObject({ type: 'step-end', finishReason: 'stop' });

      const sent = standIn.requests.at(-1);
      expect(sent?.vendor).toBe(vendor);
      SECOND_REQUEST_HISTORY[vendor](sent?.body as Record<string, unknown>);
    });
  },
);
