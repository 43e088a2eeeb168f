/**
 * Faults a streaming chat bot is prone to, each reproduced against the pipeline as a whole.
 */
import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../src/core/stream-part.ts';
import { buildStopAcknowledgementRequest } from '../../src/stream/stop/stop-acknowledgement.ts';
import { createStopPhraseMatcher } from '../../src/stream/stop/stop-phrases.ts';
import { StopRegistry, type StopCandidate } from '../../src/stream/stop/stop-registry.ts';
import { settle } from '../../src/stream/testing/manual-clock.ts';
import { stepEnd, textDeltas } from '../../src/stream/testing/scripted-chat-model.ts';
import { deliverDeltas } from '../../src/stream/testing/text-pipeline.ts';
import { BASE_REQUEST, turnFixture } from '../../src/stream/testing/turn-fixture.ts';

const fromAlice = (content: string, overrides: Partial<StopCandidate> = {}): StopCandidate => ({
  channelId: 'channel-1',
  messageId: 'stop-message-1',
  authorId: 'alice',
  authorName: 'Alice',
  content,
  authorIsModerator: false,
  addressForms: [],
  ...overrides,
});

/** A model that writes `before`, then waits for `release` before writing `after`. */
function pausingModel(before: string, after: string) {
  let release: () => void = () => undefined;
  const paused = new Promise<void>((resolve) => (release = resolve));
  async function* script(): AsyncIterable<StreamPart> {
    yield* textDeltas(before, 4);
    await paused;
    yield* textDeltas(after, 4);
    yield stepEnd();
  }
  return { script, release: () => release() };
}

describe('a stop keeps what the in-character reply to it needs', () => {
  it('keeps the stop context and the partial text so the acknowledgement knows what was interrupted', async () => {
    const model = pausingModel(
      'There are many ways to cook pasta.\n\nFirst, you',
      ' need water.\n\nThen salt.',
    );
    const { run, sink, journal } = turnFixture({ scripts: [model.script] });
    const registry = new StopRegistry();
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['alice'],
    });
    const running = run({ signal: live.signal });
    await settle();
    expect(registry.consider(fromAlice('stop, I get it')).stopped).toBe(true);
    model.release();
    const outcome = await running;
    live.end();

    expect(outcome.status).toBe('stopped');
    expect(outcome.stop?.request).toMatchObject({
      authorName: 'Alice',
      content: 'stop, I get it',
      turnId: 'turn-1',
    });
    expect(outcome.stop?.interruptedText).toBe('There are many ways to cook pasta.\n\nFirst, you');
    // Nothing of the interrupted reply after the stop; queued writes dropped; one record, stopped.
    expect(sink.messages).toEqual(['There are many ways to cook pasta.']);
    expect(sink.calls.some((call) => call.type === 'discard')).toBe(true);
    expect(journal.finishes).toHaveLength(1);
    expect(journal.finishes[0]?.end).toMatchObject({ status: 'stopped', content: outcome.content });

    const acknowledgement = buildStopAcknowledgementRequest({
      request: BASE_REQUEST,
      interruptedText: outcome.stop?.interruptedText ?? '',
      stop: outcome.stop!.request,
    });
    expect(acknowledgement.messages.at(-2)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'There are many ways to cook pasta.\n\nFirst, you' }],
    });
    expect(acknowledgement.system).toContain('Alice asked you to stop');
  });

  it('aborts a tool call in flight and ends at once, even if the tool ignores its signal', async () => {
    let toolSignal: AbortSignal | undefined;
    const { run, model, journal } = turnFixture({
      tools: {
        search: (_input, signal) => {
          toolSignal = signal;
          return new Promise(() => undefined);
        },
      },
      scripts: [
        [
          ...textDeltas('Searching.', 4),
          {
            type: 'tool-call',
            id: 'c1',
            name: 'search',
            input: { q: 'x' },
            inputText: '{"q":"x"}',
          },
          stepEnd('tool_calls'),
        ],
      ],
    });
    const registry = new StopRegistry();
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['alice'],
    });
    const running = run({ signal: live.signal });
    await settle();
    expect(toolSignal?.aborted).toBe(false);
    registry.consider(fromAlice('やめて'));
    const outcome = await running;
    expect(toolSignal?.aborted).toBe(true);
    expect(outcome).toMatchObject({ status: 'stopped', content: 'Searching.' });
    expect(outcome.stop?.request.content).toBe('やめて');
    expect(outcome.metrics.tools).toEqual([{ name: 'search', durationMs: 0, outcome: 'aborted' }]);
    expect(model.requests).toHaveLength(1);
    expect(journal.finishes.map((entry) => entry.end.status)).toEqual(['stopped']);
  });

  it('stops paced messages still waiting to be "typed" after the model finished', async () => {
    const { run, sink, clock, journal } = turnFixture({
      scripts: [[...textDeltas('One.\n\nTwo is longer.\n\nThree.', 6), stepEnd()]],
    });
    const registry = new StopRegistry();
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['alice'],
    });
    const running = run({ signal: live.signal, humanizerDegree: 2 });
    await settle();
    expect(sink.messages).toEqual(['One.']);
    registry.consider(fromAlice('ok stop'));
    await clock.advance(60_000);
    const outcome = await running;
    expect(sink.messages).toEqual(['One.']);
    expect(outcome.status).toBe('stopped');
    expect(outcome.stop?.request.content).toBe('ok stop');
    expect(journal.finishes.map((entry) => entry.end.status)).toEqual(['stopped']);
  });
});

describe('a stream that goes silent times out', () => {
  it('fails the turn after 60 s without a part, although the stream never answers', async () => {
    async function* stalled(): AsyncIterable<StreamPart> {
      yield { type: 'text-delta', text: 'Let me think' };
      await new Promise<never>(() => undefined);
    }
    const { run, clock, journal, sink } = turnFixture({ scripts: [stalled] });
    const running = run();
    await settle();
    await clock.advance(60_000);
    const outcome = await running;
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(sink.messages).toEqual(['Let me think']);
    expect(journal.finishes.map((entry) => entry.end.status)).toEqual(['failed']);
  });
});

describe('the final buffered text survives an empty last chunk', () => {
  it('delivers the tail when the provider ends with an empty delta', async () => {
    const { run, sink } = turnFixture({
      scripts: [
        [
          ...textDeltas('First.\n\nAnd the last words', 5),
          { type: 'text-delta', text: '' },
          stepEnd(),
        ],
      ],
    });
    const outcome = await run();
    expect(sink.messages).toEqual(['First.', 'And the last words']);
    expect(outcome.content).toBe('First.\n\nAnd the last words');
  });
});

describe('paragraphs over 2000 characters are split', () => {
  it('sends a 5000-character paragraph as messages within the limit, nothing lost', async () => {
    const paragraph = Array.from({ length: 1100 }, (_, index) => `w${index}`).join(' ');
    expect(paragraph.length).toBeGreaterThan(4000);
    for (const degree of [0, 1, 2] as const) {
      const deltas = paragraph.match(/[\s\S]{1,10}/g) ?? [];
      const sink = await deliverDeltas(deltas, { degree });
      expect(sink.messages.length).toBeGreaterThanOrEqual(3);
      for (const message of sink.messages) expect(message.length).toBeLessThanOrEqual(2000);
      expect(sink.messages.join(' ')).toBe(paragraph);
    }
  });
});

describe('`:)` or `1)` hold back no flushing', () => {
  it('delivers paragraphs while the stream is still running, emoticons and list labels notwithstanding', async () => {
    const model = pausingModel(
      'Sure :) here goes.\n\n1) first\n2) second ;)\n\nThird part',
      ' and the end.',
    );
    const { run, sink } = turnFixture({ scripts: [model.script] });
    const running = run();
    await settle();
    expect(sink.messages).toEqual(['Sure :) here goes.', '1) first\n2) second ;)']);
    model.release();
    await running;
    expect(sink.messages.at(-1)).toBe('Third part and the end.');
  });
});

describe('stop phrases are literals, never regular expressions', () => {
  it('matches custom phrases with regex characters literally', () => {
    const matcher = createStopPhraseMatcher(['c++', 'stop.', '(x)']);
    expect(matcher.isStandalone('c++')).toBe(true);
    expect(matcher.isStandalone('cpp')).toBe(false);
    expect(matcher.isStandalone('stopx')).toBe(false);
    expect(matcher.isStandalone('x')).toBe(true);
  });
});

describe('another member\'s "wait" does not interrupt the bot', () => {
  it("keeps streaming when another member says 'wait, what?' or the requester asks someone else", async () => {
    const model = pausingModel('Part one.\n\n', 'Part two.');
    const { run, sink } = turnFixture({ scripts: [model.script] });
    const registry = new StopRegistry();
    const live = registry.begin({
      channelId: 'channel-1',
      turnId: 'turn-1',
      requesterIds: ['alice'],
    });
    const running = run({ signal: live.signal });
    await settle();
    expect(
      registry.consider(fromAlice('wait, what?', { authorId: 'bob', authorName: 'Bob' })).stopped,
    ).toBe(false);
    expect(
      registry.consider(fromAlice("that's fine", { authorId: 'bob', authorName: 'Bob' })).stopped,
    ).toBe(false);
    expect(registry.consider(fromAlice('wait, what about X?')).stopped).toBe(false);
    model.release();
    const outcome = await running;
    expect(outcome.status).toBe('complete');
    expect(sink.messages).toEqual(['Part one.', 'Part two.']);
  });
});
