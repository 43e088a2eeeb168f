/** Gemini specifics, beyond the shared contract, checked on the wire. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatModel } from '../../src/core/provider.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { ADAPTERS, collect, userRequest } from './support/adapters.ts';

let standIn: LlmStandIn;
let model: ChatModel;
beforeAll(async () => {
  standIn = await LlmStandIn.start();
  model = ADAPTERS.find((adapter) => adapter.vendor === 'google')!.create(standIn);
});
afterAll(async () => {
  await standIn.close();
});

describe('the Gemini adapter', () => {
  it('sends system instructions, thoughts on, no weakened safety settings, images and tool errors', async () => {
    standIn.enqueue(textScript('ok'));
    await collect(
      model,
      userRequest('gemini-3.8-flash', 'unused', {
        temperature: 0.4,
        maxOutputTokens: 800,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
              { type: 'image', mediaType: 'image/jpeg', url: 'https://cdn.example.com/c.jpg' },
            ],
          },
          {
            role: 'assistant',
            content: [{ type: 'tool-call', id: 'call_1', name: 'identify', input: {} }],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                callId: 'call_1',
                name: 'identify',
                output: 'quota',
                isError: true,
              },
            ],
          },
        ],
      }),
    );
    const body = standIn.requests.at(-1)?.body as Record<string, unknown>;
    expect(body['systemInstruction']).toMatchObject({
      parts: [{ text: 'You are Tomo, a friendly companion.' }],
    });
    expect(body['generationConfig']).toMatchObject({
      temperature: 0.4,
      maxOutputTokens: 800,
      thinkingConfig: { includeThoughts: true },
    });
    expect(body).not.toHaveProperty('safetySettings');
    expect(body['contents']).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What is this?' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { fileUri: 'https://cdn.example.com/c.jpg', mimeType: 'image/jpeg' } },
        ],
      },
      { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'identify', args: {} } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_1', name: 'identify', response: { error: 'quota' } } },
        ],
      },
    ]);
  });

  it('reports thinking tokens as reasoning within the output', async () => {
    standIn.enqueue({
      steps: [
        { type: 'text', text: 'Hm.' },
        { type: 'usage', inputTokens: 100, outputTokens: 70, reasoningTokens: 50 },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const { parts } = await collect(model, userRequest('gemini-3.8-flash'));
    expect(parts.at(-1)).toMatchObject({
      type: 'step-end',
      usage: { inputTokens: 100, outputTokens: 70, cachedInputTokens: 0, reasoningTokens: 50 },
    });
  });
});
