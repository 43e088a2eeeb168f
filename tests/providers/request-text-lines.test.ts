/**
 * On the wire: text parts from different Discord messages and from reminders reach
 * every vendor separated by a newline, so each speaker label starts a line, as the system
 * prompt promises. The body each real SDK sent is read the way the model reads it: a message's
 * text parts (or blocks) run together.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest } from '../../src/core/chat.ts';
import { buildStopAcknowledgementRequest } from '../../src/stream/stop/stop-acknowledgement.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { asArray, asObject } from '../support/llm-stand-in/recorded-request.ts';
import { textScript, type StandInVendor } from '../support/llm-stand-in/script.ts';
import { ADAPTERS, collect } from './support/adapters.ts';

const BOB = '[bob (id 210000000000000002)]';
const ALICE = '[alice (id 210000000000000001)]';
const SPEAKER_LABEL = /\[[^\]\n]+ \(id \d+(?:, a bot)?\)\]: /g;

/** What the bot sends after a coalesced batch: history, then reminders and two messages in one. */
function batchRequest(model: string): ChatRequest {
  const text = (value: string) => ({ type: 'text' as const, text: value });
  const messages: ChatMessage[] = [
    { role: 'user', content: [text(`${ALICE}: tell me a story`), text(`${BOB}: about a fox`)] },
    { role: 'assistant', content: [text('Once upon a time…'), text('The end.')] },
    {
      role: 'user',
      content: [
        text('<system-reminder>\nYou are Tomo.\n</system-reminder>'),
        text(`${BOB}: wait, what?`),
        text(`${BOB}: and what's the moral of it?`),
      ],
    },
  ];
  return { model, system: 'You are Tomo.', messages, tools: [] };
}

/** Each message's text as the model reads it: its text parts or blocks, run together. */
function messageTexts(vendor: StandInVendor, body: unknown): string[] {
  const request = asObject(body);
  const joined = (items: unknown[]) =>
    items
      .map(asObject)
      .map((item) => (typeof item['text'] === 'string' ? item['text'] : ''))
      .join('');
  if (vendor === 'google') {
    return asArray(request['contents']).map((content) =>
      joined(asArray(asObject(content)['parts'])),
    );
  }
  return asArray(request['messages'])
    .map(asObject)
    .filter((message) => message['role'] !== 'system')
    .map((message) =>
      typeof message['content'] === 'string'
        ? message['content']
        : joined(asArray(message['content'])),
    );
}

/** Every speaker label that does not start a line, with what came right before it. */
function gluedLabels(texts: readonly string[]): string[] {
  return texts.flatMap((text) =>
    [...text.matchAll(SPEAKER_LABEL)]
      .filter((match) => match.index > 0 && text[match.index - 1] !== '\n')
      .map((match) => text.slice(Math.max(0, match.index - 20), match.index + match[0].length)),
  );
}

let standIn: LlmStandIn;
beforeAll(async () => {
  standIn = await LlmStandIn.start({ handler: () => textScript('ok') });
});
afterAll(() => standIn.close());

describe.each(ADAPTERS)('text parts on the $vendor wire', (adapter) => {
  it('start every speaker label of a merged batch on its own line', async () => {
    await collect(adapter.create(standIn), batchRequest(adapter.model));
    const texts = messageTexts(adapter.vendor, standIn.requests.at(-1)?.body);
    expect(texts.join('\n')).toContain(`${BOB}: wait, what?`);
    expect(gluedLabels(texts)).toEqual([]);
    expect(texts.at(-1)).toContain(`</system-reminder>\n${BOB}: wait, what?\n${BOB}: and what`);
    expect(texts.at(-2)).toBe('Once upon a time…\nThe end.');
  });

  it('put the stop of an acknowledgement on its own line after the pending message', async () => {
    const request = buildStopAcknowledgementRequest({
      request: batchRequest(adapter.model),
      interruptedText: '',
      stop: {
        kind: 'stop-request',
        turnId: 'turn-1',
        channelId: '310000000000000001',
        messageId: '410000000000000009',
        authorId: '210000000000000002',
        authorName: 'bob',
        content: 'stop',
      },
    });
    await collect(adapter.create(standIn), request);
    const texts = messageTexts(adapter.vendor, standIn.requests.at(-1)?.body);
    expect(texts.at(-1)).toMatch(/and what's the moral of it\?\nstop$/);
  });
});
