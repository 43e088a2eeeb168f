import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, collect, textOf, userRequest } from '../../providers/support/adapters.ts';
import { LlmStandIn } from './llm-stand-in.ts';
import { textScript } from './script.ts';

let standIn: LlmStandIn;
beforeAll(async () => {
  // Answers every request by echoing its last user text, split mid-word.
  standIn = await LlmStandIn.start({
    handler: (request) =>
      textScript(request.lastUserText.slice(0, 3), request.lastUserText.slice(3)),
  });
});
afterAll(async () => {
  await standIn.close();
});

describe('the LLM stand-in', () => {
  it('serves 200 concurrent streams across all three vendors and records every request', async () => {
    const before = standIn.requests.length;
    const runs = Array.from({ length: 200 }, async (_, index) => {
      const adapter = ADAPTERS[index % ADAPTERS.length]!;
      const text = `channel ${index} says hello`;
      const { parts } = await collect(adapter.create(standIn), userRequest(adapter.model, text));
      return textOf(parts) === text;
    });
    expect((await Promise.all(runs)).every(Boolean)).toBe(true);
    const recorded = standIn.requests.slice(before);
    expect(recorded).toHaveLength(200);
    expect(new Set(recorded.map((request) => request.lastUserText)).size).toBe(200);
    expect(recorded.filter((request) => request.clientClosed)).toEqual([]);
  });

  it('answers from the queue before the handler, in order', async () => {
    standIn.enqueue(textScript('first'), textScript('second'));
    const adapter = ADAPTERS[0]!;
    const model = adapter.create(standIn);
    const answers = [];
    for (let index = 0; index < 3; index += 1) {
      answers.push(textOf((await collect(model, userRequest(adapter.model, 'handler'))).parts));
    }
    expect(answers).toEqual(['first', 'second', 'handler']);
  });

  it('resolves waitForRequest when the request arrives', async () => {
    const next = standIn.waitForRequest();
    const adapter = ADAPTERS[2]!;
    await collect(adapter.create(standIn), userRequest(adapter.model, 'ping'));
    await expect(next).resolves.toMatchObject({ vendor: 'google', lastUserText: 'ping' });
  });
});
