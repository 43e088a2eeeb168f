import { describe, expect, it } from 'vitest';
import { LocalControlBus } from '../../core/control-bus.ts';
import { silentLogger } from '../../core/logger.ts';
import { StopRegistry } from '../../stream/stop/stop-registry.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import {
  CONTROL_TOPICS,
  settingsChangedSchema,
  stopMessageSchema,
  stopResultSchema,
} from './control-messages.ts';
import { CrossProcessStops } from '../stops/cross-process-stops.ts';

const CHANNEL = '100000000000000001';
const ALICE = '200000000000000001';

/** A stop as a newer version of the bot might send it during a rolling deploy. */
const stopFromANewerProcess = {
  requestId: 'request-1',
  origin: 'instance-newer',
  by: 'reaction',
  channelId: CHANNEL,
  authorId: ALICE,
  authorIsModerator: false,
  priority: 'high',
  trace: { hops: 1 },
};

describe('control messages from a newer version of the bot', () => {
  it('keeps a stop of a kind this version does not know, as a stop without words', () => {
    const parsed = stopMessageSchema.safeParse(stopFromANewerProcess);
    expect(parsed.success).toBe(true);
    expect(parsed.data).toEqual({
      requestId: 'request-1',
      origin: 'instance-newer',
      by: 'command',
      channelId: CHANNEL,
      authorId: ALICE,
      authorIsModerator: false,
    });
  });

  it('drops fields it does not know inside a relayed message, keeping the words', () => {
    const message = {
      messageId: '300000000000000001',
      authorName: 'Alice',
      content: 'stop',
      addressForms: ['@Tomodachi'],
      language: 'en',
    };
    const parsed = stopMessageSchema.parse({ ...stopFromANewerProcess, by: 'message', message });
    expect(parsed.message).toEqual({
      messageId: '300000000000000001',
      authorName: 'Alice',
      content: 'stop',
      addressForms: ['@Tomodachi'],
    });
  });

  it('reads a refusal of a reason it does not know as "left alone", never as stopped or nothing live', () => {
    const parsed = stopResultSchema.parse({
      requestId: 'request-1',
      origin: 'instance-newer',
      stopped: false,
      reason: 'owner-paused',
      retryAfterMs: 200,
    });
    expect(parsed).toEqual({
      requestId: 'request-1',
      origin: 'instance-newer',
      stopped: false,
      reason: 'already-stopping',
    });
  });

  it('keeps a settings change with fields it does not know', () => {
    const parsed = settingsChangedSchema.safeParse({
      origin: 'instance-newer',
      scopeId: '400000000000000001',
      version: 3,
      fields: ['model'],
    });
    expect(parsed.success).toBe(true);
  });

  it('still refuses what no version sends: no channel, or a kind that is not text', () => {
    const { channelId: _dropped, ...withoutChannel } = stopFromANewerProcess;
    expect(stopMessageSchema.safeParse(withoutChannel).success).toBe(false);
    expect(stopMessageSchema.safeParse({ ...stopFromANewerProcess, by: 7 }).success).toBe(false);
    expect(
      stopMessageSchema.safeParse({ ...stopFromANewerProcess, by: 'x'.repeat(101) }).success,
    ).toBe(false);
  });

  it('stops the live turn for such a stop, and answers it', async () => {
    const bus = new LocalControlBus({ shared: true });
    const registry = new StopRegistry();
    new CrossProcessStops({
      stops: registry,
      bus,
      clock: new ManualClock(),
      logger: silentLogger,
      instanceId: 'instance-older',
    }).start();
    const live = registry.begin({ channelId: CHANNEL, turnId: 'turn-1', requesterIds: [ALICE] });
    const answers: unknown[] = [];
    bus.subscribe(CONTROL_TOPICS.stopResult, (payload) => answers.push(payload));
    await bus.publish(CONTROL_TOPICS.stop, stopFromANewerProcess);
    expect(live.signal.aborted).toBe(true);
    expect(live.signal.reason).toMatchObject({ kind: 'command-stop', authorId: ALICE });
    expect(answers).toEqual([
      { requestId: 'request-1', origin: 'instance-older', stopped: true, turnId: 'turn-1' },
    ]);
  });
});
