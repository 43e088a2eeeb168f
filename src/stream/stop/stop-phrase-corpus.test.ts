import { describe, expect, it } from 'vitest';
import corpus from '../../../tests/corpora/stop-phrase-corpus.json' with { type: 'json' };
import { StopRegistry } from './stop-registry.ts';

interface LabelledMessage {
  text: string;
  /** A person reading it would take it as "stop the reply" (true) or as a message to answer. */
  stop: boolean;
}

/** The full rule as the bot applies it: the member being answered says `text` mid-reply. */
function stopsTheTurn(text: string): boolean {
  const registry = new StopRegistry();
  registry.begin({ channelId: 'channel-1', turnId: 'turn-1', requesterIds: ['alice'] });
  return registry.consider({
    channelId: 'channel-1',
    messageId: 'message-2',
    authorId: 'alice',
    authorName: 'Alice',
    content: text,
    authorIsModerator: false,
    addressForms: corpus.addressForms,
  }).stopped;
}

describe('stop phrase corpus (en + ja, real-world style)', () => {
  const messages: readonly LabelledMessage[] = corpus.messages;

  it('has at least 200 labelled messages of both kinds', () => {
    expect(messages.length).toBeGreaterThanOrEqual(200);
    expect(messages.filter((message) => message.stop).length).toBeGreaterThanOrEqual(80);
    expect(messages.filter((message) => !message.stop).length).toBeGreaterThanOrEqual(80);
  });

  it('stops on stops and answers everything else: precision and recall both at least 0.98', () => {
    const missed: string[] = [];
    const swallowed: string[] = [];
    let truePositives = 0;
    for (const message of messages) {
      const stopped = stopsTheTurn(message.text);
      if (stopped && message.stop) truePositives += 1;
      if (!stopped && message.stop) missed.push(message.text);
      if (stopped && !message.stop) swallowed.push(message.text);
    }
    const precision = truePositives / (truePositives + swallowed.length);
    const recall = truePositives / (truePositives + missed.length);
    console.info(
      `stop corpus: ${messages.length} messages, precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}\n` +
        `  swallowed as stops (${swallowed.length}): ${JSON.stringify(swallowed)}\n` +
        `  stops missed (${missed.length}): ${JSON.stringify(missed)}`,
    );
    expect(precision).toBeGreaterThanOrEqual(0.98);
    expect(recall).toBeGreaterThanOrEqual(0.98);
  });
});
