import { describe, expect, it } from 'vitest';
import { humanizerPlan } from '../../humanizer/humanizer-plan.ts';
import { SemanticBlockBuffer } from '../blocks/block-buffer.ts';
import { ReplyDelivery } from './reply-delivery.ts';
import { blockPolicyFor, resolveStreamOptions } from '../turn/stream-options.ts';
import { ManualClock } from '../testing/manual-clock.ts';
import { RecordingSink } from '../testing/recording-sink.ts';
import { deliverDeltas } from '../testing/text-pipeline.ts';

const pacing = { millisecondsPerCharacter: 10, minimumMs: 300, maximumMs: 2000, jitter: 0.2 };

function pacedDelivery(degree: 2 | 3, clock: ManualClock, random = (): number => 0.5) {
  const sink = new RecordingSink();
  const plan = humanizerPlan(degree);
  const delivery = new ReplyDelivery({
    sink,
    mode: 'messages',
    plan,
    messageLimit: 2000,
    pacing,
    clock,
    random,
    previewIntervalMs: 0,
  });
  const buffer = new SemanticBlockBuffer(blockPolicyFor(plan, resolveStreamOptions()));
  const feed = (text: string): void => {
    for (const block of [...buffer.push(text), ...buffer.finish()]) delivery.accept(block);
  };
  return { sink, delivery, feed };
}

describe('ReplyDelivery', () => {
  it('at degree 1 sends one message per paragraph, immediately and unchanged', async () => {
    const sink = await deliverDeltas(['First **para**graph.\n\nSecond one.\nSame ', 'paragraph.'], {
      degree: 1,
    });
    expect(sink.calls.filter((call) => call.type === 'push')).toEqual([
      { type: 'push', chunk: 'First **para**graph.' },
      { type: 'push', chunk: 'Second one.\nSame paragraph.' },
    ]);
  });

  it('at degree 2 paces messages: the first at once, each next after a typing pause proportional to its length', async () => {
    const clock = new ManualClock();
    const { sink, delivery, feed } = pacedDelivery(2, clock);
    feed(`First.\n\n${'x'.repeat(100)}\n\nThird.`);
    const done = delivery.complete();
    await clock.advance(0);
    expect(sink.messages).toEqual(['First.']);
    expect(clock.pendingSleeps()).toEqual([1000]); // 100 characters × 10 ms
    await clock.advance(999);
    expect(sink.messages).toHaveLength(1);
    await clock.advance(1);
    expect(sink.messages).toHaveLength(2);
    expect(clock.pendingSleeps()).toEqual([300]); // "Third." is short: clamped to the minimum
    await clock.advance(300);
    await done;
    expect(sink.messages).toEqual(['First.', 'x'.repeat(100), 'Third.']);
  });

  it('jitters the pause within its bounds', async () => {
    const clock = new ManualClock();
    const { delivery, feed } = pacedDelivery(2, clock, () => 0);
    feed(`One.\n\n${'y'.repeat(100)}`);
    void delivery.complete();
    await clock.advance(0);
    expect(clock.pendingSleeps()).toEqual([800]); // 1000 ms − 20 %
  });

  it('at degree 3 sends each sentence as a casual message', async () => {
    const clock = new ManualClock();
    const { sink, delivery, feed } = pacedDelivery(3, clock);
    feed('Hello There. I saw **NASA** at https://Example.com/X. Nice!');
    const done = delivery.complete();
    await clock.advance(10_000);
    await done;
    expect(sink.messages).toEqual([
      'hello there',
      'i saw **NASA** at https://Example.com/X',
      'nice!',
    ]);
  });

  it('after stop() hands nothing more to the sink, and drops what it queued', async () => {
    const clock = new ManualClock();
    const { sink, delivery, feed } = pacedDelivery(2, clock);
    feed('One.\n\nTwo.\n\nThree.');
    const done = delivery.complete();
    await clock.advance(0);
    delivery.stop();
    await clock.advance(60_000);
    await done;
    expect(sink.messages).toEqual(['One.']);
    expect(sink.calls.filter((call) => call.type === 'discard')).toHaveLength(1);
    feed('Four.');
    expect(sink.messages).toEqual(['One.']);
  });
});

describe('edit-in-place delivery', () => {
  it('grows one message by edits and seals it at the end', async () => {
    const sink = await deliverDeltas(['Hello ', 'there.\n\nHow ', 'are you?'], { mode: 'edit' });
    const contents = sink.calls
      .filter((call) => call.type === 'update')
      .map((call) => call.content);
    expect(contents.at(-1)).toBe('Hello there.\n\nHow are you?');
    expect(contents).toContain('Hello there.');
    expect(sink.calls.filter((call) => call.type === 'seal')).toHaveLength(1);
    expect(sink.messages).toEqual(['Hello there.\n\nHow are you?']);
  });

  it('starts a new message at the limit, carrying an open code block over with its language', async () => {
    const code = Array.from({ length: 80 }, (_, index) => `print(${index})`).join('\n');
    const text = `Intro.\n\n\`\`\`python\n${code}\n\`\`\`\nOutro.`;
    const sink = await deliverDeltas(splitEvery(text, 7), {
      mode: 'edit',
      streamOptions: { messageLimit: 300 },
    });
    expect(sink.messages.length).toBeGreaterThanOrEqual(3);
    for (const message of sink.messages) {
      expect(message.length).toBeLessThanOrEqual(300);
      expect((message.match(/```/g)?.length ?? 0) % 2).toBe(0);
    }
    expect(sink.messages[1]?.startsWith('```python\n')).toBe(true);
    expect(sink.messages.at(-1)).toMatch(/Outro\.$/);
  });

  it('previews text still being scanned, at most once per interval', async () => {
    const clock = new ManualClock();
    const sink = await deliverDeltas(['One ', 'two ', 'three'], {
      mode: 'edit',
      clock,
      streamOptions: { editPreviewIntervalMs: 1000 },
    });
    const updates = sink.calls.filter((call) => call.type === 'update').map((call) => call.content);
    expect(updates).toEqual(['One', 'One two three']);
  });
});

function splitEvery(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let index = 0; index < text.length; index += size)
    parts.push(text.slice(index, index + size));
  return parts;
}

describe('the end of the reply', () => {
  const ends = (sink: RecordingSink): string[] =>
    sink.calls
      .filter((call) => call.type === 'push' || call.type === 'update' || call.type === 'end')
      .map((call) => (call.type === 'end' ? 'end' : call.type));

  it('is announced just before the last message, not before the earlier ones', async () => {
    const sink = await deliverDeltas(['First.\n\nSecond.\n\nThird', ' and last.']);
    expect(ends(sink)).toEqual(['push', 'push', 'end', 'push']);
    expect(sink.messages.at(-1)).toBe('Third and last.');
  });

  it('waits for paced messages: it comes with the last one, after its typing pause', async () => {
    const clock = new ManualClock();
    const { sink, delivery } = pacedDelivery(2, clock);
    delivery.acceptFinal([...blocksOf('First.\n\nSecond one.')]);
    const done = delivery.complete();
    await clock.advance(0);
    expect(ends(sink)).toEqual(['push']);
    await clock.advance(2000);
    await done;
    expect(ends(sink)).toEqual(['push', 'end', 'push']);
  });

  it('comes at once when the last message was already handed over (nothing in the tail)', () => {
    const sink = new RecordingSink();
    const plan = humanizerPlan(1);
    const delivery = new ReplyDelivery({
      sink,
      mode: 'messages',
      plan,
      messageLimit: 2000,
      pacing,
      clock: new ManualClock(),
      random: () => 0.5,
      previewIntervalMs: 0,
    });
    for (const block of blocksOf('Only paragraph.')) delivery.accept(block);
    delivery.acceptFinal([]);
    expect(ends(sink)).toEqual(['push', 'end']);
  });

  it('in edit mode precedes the final growth of the message', async () => {
    const sink = await deliverDeltas(['Hello ', 'there.\n\nHow ', 'are you?'], {
      mode: 'edit',
      streamOptions: { editPreviewIntervalMs: 1000 },
    });
    expect(sink.calls.slice(-3)).toEqual([
      { type: 'end' },
      { type: 'update', content: 'Hello there.\n\nHow are you?' },
      { type: 'seal' },
    ]);
  });

  it('is never announced after a stop', () => {
    const clock = new ManualClock();
    const { sink, delivery } = pacedDelivery(2, clock);
    delivery.stop();
    delivery.acceptFinal([...blocksOf('Too late.')]);
    expect(ends(sink)).toEqual([]);
  });
});

function blocksOf(text: string) {
  const plan = humanizerPlan(2);
  const buffer = new SemanticBlockBuffer(blockPolicyFor(plan, resolveStreamOptions()));
  return [...buffer.push(text), ...buffer.finish()];
}
