import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest } from '../../core/chat.ts';
import { ProviderError } from '../../core/errors.ts';
import type { StreamPart } from '../../core/stream-part.ts';
import { stepEnd, textDeltas } from '../testing/scripted-chat-model.ts';
import { turnFixture } from '../testing/turn-fixture.ts';
import type { UsageEstimator } from './usage-estimator.ts';

/** One token per character, so the numbers are easy to check. */
const characterEstimator: UsageEstimator = {
  input: (request: ChatRequest) =>
    request.system.length + request.messages.reduce((sum, message) => sum + length(message), 0),
  output: (message) => length(message),
};

function length(message: ChatMessage): number {
  return message.content.reduce(
    (sum, part) => sum + ('text' in part && typeof part.text === 'string' ? part.text.length : 0),
    0,
  );
}

const INPUT = 'You are Tomo.'.length + 'Hi!'.length;

describe('token accounting of model calls without reported usage', () => {
  it('counts a stopped turn: what was sent and what had streamed', async () => {
    const stop = new AbortController();
    async function* script(_request: ChatRequest, signal: AbortSignal): AsyncIterable<StreamPart> {
      yield* textDeltas('Twelve chars', 12);
      // The member says stop while the model is still writing.
      const aborted = new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      stop.abort();
      await aborted;
    }
    const { run } = turnFixture({ scripts: [script] });
    const outcome = await run({ signal: stop.signal, usageEstimator: characterEstimator });
    expect(outcome.status).toBe('stopped');
    expect(outcome.metrics).toMatchObject({
      inputTokens: INPUT,
      outputTokens: 'Twelve chars'.length,
      estimatedUsageCalls: 1,
    });
  });

  it('counts a turn that failed mid-stream', async () => {
    const failure = new ProviderError({ kind: 'network', message: 'connection reset' });
    const { run } = turnFixture({
      scripts: [[...textDeltas('Half a', 6), { type: 'error', error: failure }]],
    });
    const outcome = await run({ usageEstimator: characterEstimator });
    expect(outcome.status).toBe('failed');
    expect(outcome.metrics).toMatchObject({
      inputTokens: INPUT,
      outputTokens: 'Half a'.length,
      estimatedUsageCalls: 1,
    });
  });

  it('counts the input of a call that failed before answering without an HTTP status', async () => {
    const hung = new ProviderError({ kind: 'timeout', message: 'no response' });
    const { run } = turnFixture({ scripts: [[{ type: 'error', error: hung }]] });
    const outcome = await run({ usageEstimator: characterEstimator });
    expect(outcome.metrics).toMatchObject({ inputTokens: INPUT, outputTokens: 0 });
  });

  it('counts nothing for a request the provider refused with an HTTP error', async () => {
    const refused = new ProviderError({ kind: 'rate_limit', message: '429', status: 429 });
    const { run } = turnFixture({ scripts: [[{ type: 'error', error: refused }]] });
    const outcome = await run({ usageEstimator: characterEstimator });
    expect(outcome.metrics).toMatchObject({ inputTokens: 0, outputTokens: 0 });
  });

  it("keeps the provider's own usage, and estimates a step-end of zeros", async () => {
    const reported = turnFixture({ scripts: [[...textDeltas('ok', 2), stepEnd()]] });
    const fromProvider = await reported.run({ usageEstimator: characterEstimator });
    expect(fromProvider.metrics).toMatchObject({
      inputTokens: 100,
      outputTokens: 20,
      estimatedUsageCalls: 0,
    });
    const silent = turnFixture({
      scripts: [
        [
          ...textDeltas('ok', 2),
          stepEnd('stop', { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }),
        ],
      ],
    });
    const estimated = await silent.run({ usageEstimator: characterEstimator });
    expect(estimated.metrics).toMatchObject({ inputTokens: INPUT, outputTokens: 2 });
  });
});
