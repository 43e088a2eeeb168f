import { describe, expect, it } from 'vitest';
import { AssistantMessageBuilder } from './assistant-message-builder.ts';
import type { StreamPart } from './stream-part.ts';

function build(parts: StreamPart[]) {
  const builder = new AssistantMessageBuilder();
  for (const part of parts) builder.add(part);
  return builder.build();
}

describe('AssistantMessageBuilder', () => {
  it('joins consecutive deltas and keeps the order of text, reasoning and tool calls', () => {
    expect(
      build([
        { type: 'reasoning-delta', text: 'Think ' },
        { type: 'reasoning-delta', text: 'first.' },
        { type: 'text-delta', text: 'Let me ' },
        { type: 'text-delta', text: 'check.' },
        { type: 'tool-call', id: 'c1', name: 'search', input: { q: 'x' }, inputText: '{"q":"x"}' },
        {
          type: 'step-end',
          finishReason: 'tool_calls',
          usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 },
        },
      ]),
    ).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Think first.' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: 'c1', name: 'search', input: { q: 'x' } },
      ],
    });
  });

  it('closes a reasoning block at the delta that signs it, and starts a new one after', () => {
    const signature = { anthropic: { signature: 'sig-1' } };
    expect(
      build([
        { type: 'reasoning-delta', text: 'Block one.' },
        { type: 'reasoning-delta', text: '', providerMetadata: signature },
        { type: 'reasoning-delta', text: 'Block two.' },
        {
          type: 'reasoning-delta',
          text: '',
          providerMetadata: { anthropic: { redactedData: 'opaque' } },
        },
      ]).content,
    ).toEqual([
      { type: 'reasoning', text: 'Block one.', providerMetadata: signature },
      {
        type: 'reasoning',
        text: 'Block two.',
        providerMetadata: { anthropic: { redactedData: 'opaque' } },
      },
    ]);
  });

  it('keeps tool-call metadata (Gemini thought signatures) for the next request', () => {
    const metadata = { google: { thoughtSignature: 'fc-sig' } };
    expect(
      build([
        {
          type: 'tool-call',
          id: 'c1',
          name: 'f',
          input: {},
          inputText: '{}',
          providerMetadata: metadata,
        },
      ]).content,
    ).toEqual([{ type: 'tool-call', id: 'c1', name: 'f', input: {}, providerMetadata: metadata }]);
  });

  it('returns copies: building twice or adding later does not change an earlier message', () => {
    const builder = new AssistantMessageBuilder();
    builder.add({ type: 'text-delta', text: 'a' });
    const first = builder.build();
    builder.add({ type: 'text-delta', text: 'b' });
    expect(first.content).toEqual([{ type: 'text', text: 'a' }]);
    expect(builder.build().content).toEqual([{ type: 'text', text: 'ab' }]);
  });
});
