import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../core/chat.ts';
import { buildStopAcknowledgementRequest } from './stop-acknowledgement.ts';
import type { StopRequest } from './stop-registry.ts';

const request: ChatRequest = {
  model: 'model-1',
  system: 'You are Tomo, a cheerful fox.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Tell me about pasta.' }] }],
  tools: [{ name: 'search', description: 'web search', inputSchema: { type: 'object' } }],
};
const stop: StopRequest = {
  kind: 'stop-request',
  turnId: 'turn-1',
  channelId: 'channel-1',
  messageId: 'message-2',
  authorId: 'alice',
  authorName: 'Alice',
  content: 'stop, I get it',
};

describe('buildStopAcknowledgementRequest', () => {
  it('keeps the persona, shows what was interrupted and the stop, and offers no tools', () => {
    const ack = buildStopAcknowledgementRequest({
      request,
      interruptedText: 'There are many ways to cook pasta. First,',
      stop,
    });
    expect(ack.system).toContain('You are Tomo, a cheerful fox.');
    expect(ack.system).toContain('Alice asked you to stop ("stop, I get it")');
    expect(ack.tools).toEqual([]);
    expect(ack.maxOutputTokens).toBe(150);
    expect(ack.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'There are many ways to cook pasta. First,' }],
      },
      { role: 'user', content: [{ type: 'text', text: 'stop, I get it' }] },
    ]);
  });

  it('adds the stop to the pending user message when nothing was written yet', () => {
    const ack = buildStopAcknowledgementRequest({ request, interruptedText: '  ', stop });
    expect(ack.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Tell me about pasta.' },
          { type: 'text', text: 'stop, I get it' },
        ],
      },
    ]);
    expect(ack.system).toContain('You had not said anything yet');
  });

  it('shows only the end of a very long interrupted reply', () => {
    const ack = buildStopAcknowledgementRequest({
      request,
      interruptedText: `${'a'.repeat(10_000)}END`,
      stop,
    });
    const shown = ack.messages[1]?.content[0];
    expect(shown?.type === 'text' && shown.text.length).toBeLessThanOrEqual(4001);
    expect(shown?.type === 'text' && shown.text.endsWith('END')).toBe(true);
  });
});
