import { DeliveryPort } from '../../src/bot/delivery/delivery-port.ts';
import { DiscordSink } from '../../src/bot/delivery/discord-sink.ts';
import { allowedMentionsFor, type ButtonSpec } from '../../src/bot/delivery/message-target.ts';
import { TypingAllowance } from '../../src/bot/delivery/typing-allowance.ts';
import { WriteBudgets } from '../../src/bot/delivery/write-budgets.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { RecordingTarget } from './recording-target.ts';

export const GAP_NOTICE = '-# (part of this reply could not be sent)';

/** A DiscordSink over a RecordingTarget, on a ManualClock. */
export function sinkHarness(
  options: {
    limit?: number;
    replyTo?: string;
    typingPerSecond?: number;
    stopButton?: ButtonSpec;
  } = {},
) {
  const clock = new ManualClock();
  const target = new RecordingTarget('900000000000000001', () => clock.now());
  const budgets = new WriteBudgets(clock);
  const typing = new TypingAllowance(clock, { perSecond: options.typingPerSecond });
  const delivery = new DeliveryPort({ budgets, clock, logger: silentLogger });
  const sink = new DiscordSink({
    writer: delivery.to(target),
    typing,
    clock,
    logger: silentLogger,
    allowedMentions: allowedMentionsFor({ allowUserMentions: false }),
    replyTo: options.replyTo ?? '800000000000000001',
    limit: options.limit ?? 2000,
    gapNotice: GAP_NOTICE,
    ...(options.stopButton === undefined ? {} : { stopButton: options.stopButton }),
  });
  /** Discord's observed 5 writes per 5 s, as the headers of a first response would say. */
  const emptyBucket = (resetAfterMs = 5_000): void =>
    budgets.observe(target.channelId, { limit: 5, remaining: 0, resetAfterMs });
  return { clock, target, budgets, typing, sink, emptyBucket };
}
