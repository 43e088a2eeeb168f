/**
 * The streaming pipeline's text half — block buffer → humanizer → chunker — on a long reply
 * streamed in 10-character deltas, as a provider would deliver it. The sink only counts.
 */
import type { HumanizerDegree } from '../src/core/settings.ts';
import { humanizerPlan } from '../src/humanizer/humanizer-plan.ts';
import { SemanticBlockBuffer } from '../src/stream/blocks/block-buffer.ts';
import type { DeliverySink } from '../src/stream/reply/delivery-sink.ts';
import { ReplyDelivery } from '../src/stream/reply/reply-delivery.ts';
import { blockPolicyFor, resolveStreamOptions } from '../src/stream/turn/stream-options.ts';
import { systemClock } from '../src/core/clock.ts';
import { medianMs, type BenchRow } from './bench-kit.ts';

const MEGABYTE = 1024 * 1024;
const DELTA_SIZE = 10;

/**
 * One section of a typical long chat reply (about 2.5 KB): mostly prose, with what models
 * sprinkle in — a list, bold, inline code, a code block, a link, a mention, an emoticon,
 * parentheses and quotes, a Japanese paragraph. Numbered so no two sections are identical.
 */
function sampleSection(index: number): string {
  return [
    `## Part ${index}`,
    `Sure, here is how I would approach it. The short version is that you want to keep the ` +
      `moving parts small, test each one on its own, and only then wire them together (it saves ` +
      `a lot of debugging later). Most people skip that step, and it usually costs them a day or two.`,
    `First, set up the project. You can start from the template at https://example.com/templates/` +
      `starter-${index}?ref=chat and rename things as you go. If anything is unclear, ask ` +
      `<@123456789012345678> in the help channel :) they wrote most of it.`,
    `- Keep **one responsibility** per module, and name files after what they do.\n` +
      `- Write the test first when the behaviour is tricky.\n- Use \`npm run check\` before pushing.`,
    '```ts\n' +
      `export function total${index}(items: Item[]): number {\n` +
      '  let sum = 0;\n  for (const item of items) {\n    sum += item.price * item.quantity;\n  }\n' +
      '  return sum;\n}\n```',
    `That function is deliberately boring: no clever tricks, no hidden state. When someone reads ` +
      `it six months from now, they will understand it at a glance, which is the whole point. ` +
      `As a friend of mine likes to say, "code is read far more often than it is written."`,
    `日本語で説明すると、まず小さな部品を作って、それぞれをテストしてから組み合わせます。` +
      `そうすれば、問題が起きたときに原因をすぐに見つけられます。`,
    `Let me know if you want me to go deeper into any of these steps, or if you would like a ` +
      `worked example with your own data. Happy to help!`,
  ].join('\n\n');
}

function replyOf(bytes: number): string[] {
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; length < bytes; index += 1) {
    const part = sampleSection(index);
    parts.push(part);
    length += part.length + 2;
  }
  const text = parts.join('\n\n').slice(0, bytes);
  const deltas: string[] = [];
  for (let index = 0; index < text.length; index += DELTA_SIZE)
    deltas.push(text.slice(index, index + DELTA_SIZE));
  return deltas;
}

const countingSink = (): DeliverySink & { count: number } => ({
  count: 0,
  pushMessage() {
    this.count += 1;
  },
  updateCurrent() {
    this.count += 1;
  },
  sealCurrent: () => undefined,
  setTyping: () => undefined,
  setStatus: () => undefined,
  discardPending: () => undefined,
  endOfReply: () => undefined,
  flush: () => Promise.resolve({ messageIds: [], failure: undefined }),
});

function runPipeline(deltas: readonly string[], degree: HumanizerDegree): number {
  const options = resolveStreamOptions();
  const plan = humanizerPlan(degree);
  const sink = countingSink();
  // Degree 1 has no pacing, so nothing waits on the clock.
  const delivery = new ReplyDelivery({
    sink,
    mode: 'messages',
    plan: { ...plan, typingPacing: false },
    messageLimit: options.messageLimit,
    pacing: options.typingPacing,
    clock: systemClock,
    random: Math.random,
    previewIntervalMs: options.editPreviewIntervalMs,
  });
  const buffer = new SemanticBlockBuffer(blockPolicyFor(plan, options));
  for (const delta of deltas) {
    for (const block of buffer.push(delta)) delivery.accept(block);
  }
  for (const block of buffer.finish()) delivery.accept(block);
  return sink.count;
}

export async function rows(): Promise<BenchRow[]> {
  // Each size is built just before it is timed, so the other's garbage does not weigh on it.
  const oneMegabyte = replyOf(MEGABYTE);
  const timeOne = await medianMs(() => void runPipeline(oneMegabyte, 1), { runs: 15, warmup: 3 });
  const timeHeavy = await medianMs(() => void runPipeline(oneMegabyte, 3), { runs: 5, warmup: 1 });
  const twoMegabytes = replyOf(2 * MEGABYTE);
  const timeTwo = await medianMs(() => void runPipeline(twoMegabytes, 1), { runs: 15, warmup: 3 });
  const throughput = 1000 / timeOne;
  const ratio = timeTwo / timeOne;
  return [
    {
      name: 'stream: buffer+humanizer+chunker, 1 MB in 10-char deltas (degree 1)',
      value: throughput,
      unit: 'MB/s',
      target: '≥ 50 MB/s',
      pass: throughput >= 50,
    },
    {
      name: 'stream: T(2 MB) / T(1 MB)',
      value: ratio,
      unit: 'ratio',
      target: '≤ 2.2',
      pass: ratio <= 2.2,
    },
    {
      name: 'stream: same, degree 3 (one message per sentence, rewritten)',
      value: 1000 / timeHeavy,
      unit: 'MB/s',
    },
  ];
}
