/** Anthropic specifics, beyond the shared contract. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/chat.ts';
import type { ChatModel } from '../../src/core/provider.ts';
import {
  toAnthropicMessages,
  toAnthropicRequest,
} from '../../src/providers/anthropic/anthropic-request.ts';
import { ModelCatalog } from '../../src/providers/model-catalog.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { ADAPTERS, assistantMessageOf, collect, userRequest } from './support/adapters.ts';

let standIn: LlmStandIn;
let model: ChatModel;
beforeAll(async () => {
  standIn = await LlmStandIn.start();
  model = ADAPTERS.find((adapter) => adapter.vendor === 'anthropic')!.create(standIn);
});
afterAll(async () => {
  await standIn.close();
});

describe('the Anthropic adapter', () => {
  it('round-trips a redacted_thinking block unchanged', async () => {
    standIn.enqueue({
      steps: [
        { type: 'redacted-reasoning', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
        { type: 'text', text: 'Done.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const { parts } = await collect(model, userRequest('claude-sonnet-5-5'));
    expect(toAnthropicMessages([assistantMessageOf(parts)])).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
          { type: 'text', text: 'Done.' },
        ],
      },
    ]);
  });

  it('passes invalid tool-argument JSON through as text with input undefined', async () => {
    standIn.enqueue({
      steps: [
        { type: 'tool-calls', calls: [{ id: 'toolu_1', name: 'search', arguments: '{"query": ' }] },
        { type: 'finish', reason: 'tool_calls' },
      ],
    });
    const { parts } = await collect(model, userRequest('claude-sonnet-5-5'));
    expect(parts[0]).toEqual({
      type: 'tool-call',
      id: 'toolu_1',
      name: 'search',
      input: undefined,
      inputText: '{"query": ',
    });
  });
});

describe('toAnthropicRequest', () => {
  const catalog = new ModelCatalog();

  it('caps max_tokens to the model, turns on prompt caching and sends no temperature', () => {
    const body = toAnthropicRequest(
      userRequest('claude-haiku-4-5', 'Hi', { maxOutputTokens: 1_000_000, temperature: 0.5 }),
      catalog.lookup('anthropic', 'claude-haiku-4-5'),
    );
    expect(body).toMatchObject({
      max_tokens: 64_000,
      cache_control: { type: 'ephemeral' },
      stream: true,
    });
    expect(body).not.toHaveProperty('temperature');
    expect(body.system).toBe('You are Tomo, a friendly companion.');
  });

  it('merges tool results with the following user turn and drops reasoning it cannot verify', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Look this up' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: 'Gemini thoughts',
            providerMetadata: { google: { thoughtSignature: 'g' } },
          },
          { type: 'reasoning', text: 'unsigned' },
          { type: 'tool-call', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'toolu_1',
            name: 'lookup',
            output: 'not found',
            isError: true,
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'And this image?' },
          { type: 'image', mediaType: 'image/webp', data: 'UklGRg==' },
          { type: 'image', mediaType: 'image/png', url: 'https://cdn.example.com/b.png' },
        ],
      },
    ];
    expect(toAnthropicMessages(history)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Look this up' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'not found', is_error: true },
          { type: 'text', text: 'And this image?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/webp', data: 'UklGRg==' } },
          { type: 'image', source: { type: 'url', url: 'https://cdn.example.com/b.png' } },
        ],
      },
    ]);
  });
});
