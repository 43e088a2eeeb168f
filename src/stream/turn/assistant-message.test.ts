import { describe, expect, it } from 'vitest';
import { AssistantMessageBuilder } from './assistant-message.ts';

describe('AssistantMessageBuilder', () => {
  it('joins consecutive deltas and keeps the order of text, reasoning and tool calls', () => {
    const builder = new AssistantMessageBuilder();
    builder.addReasoning('Think ');
    builder.addReasoning('first.');
    builder.addText('Let me ');
    builder.addText('check.');
    builder.addToolCall({ type: 'tool-call', id: 'c1', name: 'search', input: { q: 'x' } });
    expect(builder.build()).toEqual({
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
    const redacted = { anthropic: { redactedData: 'opaque' } };
    const builder = new AssistantMessageBuilder();
    builder.addReasoning('Block one.');
    builder.addReasoning('', signature);
    builder.addReasoning('Block two.');
    builder.addReasoning('', redacted);
    expect(builder.build()?.content).toEqual([
      { type: 'reasoning', text: 'Block one.', providerMetadata: signature },
      { type: 'reasoning', text: 'Block two.', providerMetadata: redacted },
    ]);
  });

  it('keeps tool-call metadata (Gemini thought signatures) for the next request', () => {
    const metadata = { google: { thoughtSignature: 'fc-sig' } };
    const builder = new AssistantMessageBuilder();
    builder.addToolCall({
      type: 'tool-call',
      id: 'c1',
      name: 'f',
      input: {},
      providerMetadata: metadata,
    });
    expect(builder.build()?.content).toEqual([
      { type: 'tool-call', id: 'c1', name: 'f', input: {}, providerMetadata: metadata },
    ]);
  });

  it('does not change a message already built when more is added', () => {
    const builder = new AssistantMessageBuilder();
    builder.addText('a');
    const first = builder.build();
    builder.addText('b');
    builder.build();
    expect(first?.content).toEqual([{ type: 'text', text: 'a' }]);
  });

  it('builds no message from a call that produced only empty text', () => {
    const builder = new AssistantMessageBuilder();
    builder.addText('');
    expect(builder.build()).toBeUndefined();
  });
});
