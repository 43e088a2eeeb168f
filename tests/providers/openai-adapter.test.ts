/** OpenAI and OpenAI-compatible specifics, beyond the shared contract. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/core/chat.ts';
import type { ChatModel } from '../../src/core/provider.ts';
import { ModelCatalog } from '../../src/providers/model-catalog.ts';
import { toOpenAIRequest } from '../../src/providers/openai/openai-request.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { ADAPTERS, collect, reasoningOf, textOf, userRequest } from './support/adapters.ts';

let standIn: LlmStandIn;
let model: ChatModel;
beforeAll(async () => {
  standIn = await LlmStandIn.start();
  model = ADAPTERS.find((adapter) => adapter.vendor === 'openai')!.create(standIn);
});
afterAll(async () => {
  await standIn.close();
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('the OpenAI adapter with OpenAI-compatible servers', () => {
  it('splits inline <think> reasoning from a local model out of the text, across deltas', async () => {
    standIn.enqueue({
      steps: [
        { type: 'text', text: '<thi' },
        { type: 'text', text: 'nk>The user wants a joke.</th' },
        { type: 'text', text: 'ink>\n\nWhy did the' },
        { type: 'text', text: ' scarecrow win an award?' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const { parts } = await collect(model, userRequest('qwen3:8b'));
    expect(reasoningOf(parts)).toBe('The user wants a joke.');
    expect(textOf(parts)).toBe('Why did the scarecrow win an award?');
  });

  it('reads reasoning from the `reasoning` field that OpenRouter and Ollama use', async () => {
    standIn.enqueue({
      steps: [
        { type: 'raw', data: chunk({ reasoning: 'Short answer is fine.' }) },
        { type: 'text', text: 'Yes.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const { parts } = await collect(model, userRequest('deepseek/deepseek-r1'));
    expect(parts.slice(0, 2)).toEqual([
      { type: 'reasoning-delta', text: 'Short answer is fine.' },
      { type: 'text-delta', text: 'Yes.' },
    ]);
  });

  it('gives an id to a tool call a server streamed without one', async () => {
    standIn.enqueue({
      steps: [
        {
          type: 'raw',
          data: chunk({
            tool_calls: [
              {
                index: 0,
                type: 'function',
                function: { name: 'roll_dice', arguments: '{"sides"' },
              },
            ],
          }),
        },
        {
          type: 'raw',
          data: chunk({ tool_calls: [{ index: 0, function: { arguments: ': 20}' } }] }),
        },
        { type: 'finish', reason: 'tool_calls' },
      ],
    });
    const { parts } = await collect(model, userRequest('llama3.1:8b'));
    expect(parts[0]).toMatchObject({
      type: 'tool-call',
      name: 'roll_dice',
      input: { sides: 20 },
      id: expect.stringMatching(/^call_./) as string,
    });
  });

  it('passes invalid tool-argument JSON through as text with input undefined', async () => {
    standIn.enqueue({
      steps: [
        {
          type: 'tool-calls',
          calls: [{ id: 'call_x', name: 'search', arguments: '{"query": "cats", ' }],
        },
        { type: 'finish', reason: 'tool_calls' },
      ],
    });
    const { parts } = await collect(model, userRequest('gpt-5.4-mini'));
    expect(parts[0]).toEqual({
      type: 'tool-call',
      id: 'call_x',
      name: 'search',
      input: undefined,
      inputText: '{"query": "cats", ',
    });
  });

  it('shows a refusal as text and reports it as content_filter', async () => {
    standIn.enqueue({
      steps: [
        { type: 'raw', data: chunk({ refusal: "I can't help with that." }) },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const { parts } = await collect(model, userRequest('gpt-5.4-mini'));
    expect(textOf(parts)).toBe("I can't help with that.");
    expect(parts.at(-1)).toMatchObject({ type: 'step-end', finishReason: 'content_filter' });
  });
});

describe('toOpenAIRequest', () => {
  const catalog = new ModelCatalog();
  const request = (model: string, extra: Partial<ChatRequest> = {}): ChatRequest =>
    userRequest(model, 'Hi', { temperature: 0.7, maxOutputTokens: 500, ...extra });

  it('asks for usage in the stream', () => {
    const body = toOpenAIRequest(request('gpt-4o'), {
      officialApi: true,
      model: catalog.lookup('openai', 'gpt-4o'),
    });
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('uses max_completion_tokens with OpenAI itself and max_tokens with compatible servers', () => {
    const official = toOpenAIRequest(request('gpt-4o'), {
      officialApi: true,
      model: catalog.lookup('openai', 'gpt-4o'),
    });
    const local = toOpenAIRequest(request('llama3'), {
      officialApi: false,
      model: catalog.lookup('openai', 'llama3'),
    });
    expect(official).toMatchObject({ max_completion_tokens: 500 });
    expect(official).not.toHaveProperty('max_tokens');
    expect(local).toMatchObject({ max_tokens: 500 });
    expect(local).not.toHaveProperty('max_completion_tokens');
  });

  it('leaves out temperature for reasoning models that reject it', () => {
    const reasoning = toOpenAIRequest(request('gpt-5.4-mini'), {
      officialApi: true,
      model: catalog.lookup('openai', 'gpt-5.4-mini'),
    });
    const classic = toOpenAIRequest(request('gpt-4o'), {
      officialApi: true,
      model: catalog.lookup('openai', 'gpt-4o'),
    });
    expect(reasoning).not.toHaveProperty('temperature');
    expect(classic).toMatchObject({ temperature: 0.7 });
  });

  it('sends images as data URLs or URLs, and tool errors as tool messages', () => {
    const body = toOpenAIRequest(
      request('gpt-4o', {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare these' },
              { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
              { type: 'image', mediaType: 'image/jpeg', url: 'https://cdn.example.com/a.jpg' },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                callId: 'c1',
                name: 'fetch',
                output: 'timed out',
                isError: true,
              },
            ],
          },
        ],
      }),
      { officialApi: true, model: catalog.lookup('openai', 'gpt-4o') },
    );
    expect(body.messages.slice(1)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://cdn.example.com/a.jpg' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Error: timed out' },
    ]);
  });
});
