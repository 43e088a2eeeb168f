import type { Clock } from '../../core/clock.ts';
import type { DeliveryMode, HumanizerDegree } from '../../core/settings.ts';
import { humanizerPlan } from '../../humanizer/humanizer-plan.ts';
import { SemanticBlockBuffer } from '../blocks/block-buffer.ts';
import { ReplyDelivery } from '../reply/reply-delivery.ts';
import {
  blockPolicyFor,
  resolveStreamOptions,
  type StreamOptions,
} from '../turn/stream-options.ts';
import { RecordingSink } from './recording-sink.ts';

/** A clock whose sleeps end at once: for tests about WHAT is sent, not when. */
export const instantClock: Clock = { now: () => 0, sleep: () => Promise.resolve() };

/**
 * Runs text deltas through the delivery half of a turn (block buffer → humanizer → chunker →
 * sink) and answers the messages as Discord would show them, with the recording sink.
 */
export async function deliverDeltas(
  deltas: readonly string[],
  options: {
    degree?: HumanizerDegree;
    mode?: DeliveryMode;
    streamOptions?: Partial<StreamOptions>;
    clock?: Clock;
  } = {},
): Promise<RecordingSink> {
  const streamOptions = resolveStreamOptions({
    editPreviewIntervalMs: 0,
    ...options.streamOptions,
  });
  const plan = humanizerPlan(options.degree ?? 1);
  const sink = new RecordingSink();
  const delivery = new ReplyDelivery({
    sink,
    mode: options.mode ?? 'messages',
    plan,
    messageLimit: streamOptions.messageLimit,
    pacing: streamOptions.typingPacing,
    clock: options.clock ?? instantClock,
    random: () => 0.5,
    previewIntervalMs: streamOptions.editPreviewIntervalMs,
  });
  const buffer = new SemanticBlockBuffer(blockPolicyFor(plan, streamOptions));
  for (const delta of deltas) {
    for (const block of buffer.push(delta)) delivery.accept(block);
    delivery.preview(() => buffer.preview());
  }
  delivery.acceptFinal(buffer.finish());
  await delivery.complete();
  return sink;
}
