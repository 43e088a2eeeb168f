import { describe, expect, it } from 'vitest';
import { LocalControlBus } from '../../core/control-bus.ts';
import { silentLogger } from '../../core/logger.ts';
import {
  StopRegistry,
  isStopRequest,
  type StopCandidate,
} from '../../stream/stop/stop-registry.ts';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { CONTROL_TOPICS } from '../control/control-messages.ts';
import { CrossProcessStops, REMOTE_STOP_ANSWER_MS } from './cross-process-stops.ts';

const CHANNEL = '100000000000000001';
const ALICE = '200000000000000001';
const BOB = '200000000000000002';

/** Two processes (a streaming one and another) sharing one bus, in one test. */
function twoProcesses(options: { shared?: boolean } = {}) {
  const bus = new LocalControlBus({ shared: options.shared ?? true });
  const clock = new ManualClock();
  const process = (instanceId: string) => {
    const registry = new StopRegistry();
    const stops = new CrossProcessStops({
      stops: registry,
      bus,
      clock,
      logger: silentLogger,
      instanceId,
    });
    stops.start();
    return { registry, stops };
  };
  const streaming = process('instance-a');
  const other = process('instance-b');
  const live = streaming.registry.begin({
    channelId: CHANNEL,
    turnId: 'turn-1',
    requesterIds: [ALICE],
  });
  return { bus, clock, streaming, other, live };
}

const saying = (content: string, authorId = ALICE): StopCandidate => ({
  channelId: CHANNEL,
  messageId: '300000000000000001',
  authorId,
  authorName: 'Alice',
  content,
  authorIsModerator: false,
  addressForms: ['@Tomodachi'],
});

describe('CrossProcessStops', () => {
  it('stops a turn another process streams for /stop, and says which turn', async () => {
    const { other, live } = twoProcesses();
    const decision = await other.stops.stopByCommand({
      channelId: CHANNEL,
      authorId: ALICE,
      authorIsModerator: false,
      by: 'command',
    });
    expect(decision).toEqual({ stopped: true, turnId: 'turn-1' });
    expect(live.signal.aborted).toBe(true);
    expect(live.signal.reason).toMatchObject({ kind: 'command-stop', authorId: ALICE });
  });

  it('applies the streaming process rule: only the member answered or a moderator', async () => {
    const { other, live } = twoProcesses();
    const command = { channelId: CHANNEL, authorId: BOB, by: 'command' } as const;
    expect(await other.stops.stopByCommand({ ...command, authorIsModerator: false })).toEqual({
      stopped: false,
      reason: 'not-requester',
    });
    expect(live.signal.aborted).toBe(false);
    expect(await other.stops.stopByCommand({ ...command, authorIsModerator: true })).toMatchObject({
      stopped: true,
    });
  });

  it('finds nothing to stop when no process answers within the wait', async () => {
    const { other, clock } = twoProcesses();
    const asked = other.stops.stopByCommand({
      channelId: '100000000000000999',
      authorId: ALICE,
      authorIsModerator: true,
      by: 'command',
    });
    await settle();
    expect(clock.pendingSleeps()).toEqual([REMOTE_STOP_ANSWER_MS]);
    await clock.advance(REMOTE_STOP_ANSWER_MS);
    expect(await asked).toEqual({ stopped: false, reason: 'no-live-turn' });
  });

  it('carries a stop said in the channel to the streaming process, which judges the words', async () => {
    const { other, streaming, live } = twoProcesses();
    expect(await other.stops.considerElsewhere(saying('@Tomodachi stop'))).toMatchObject({
      stopped: true,
      request: { turnId: 'turn-1' },
    });
    expect(isStopRequest(live.signal.reason)).toBe(true);
    expect(live.signal.reason).toMatchObject({ content: '@Tomodachi stop', authorId: ALICE });
    // Heard a second time (the streaming process saw the message too): already stopping.
    expect(await other.stops.considerElsewhere(saying('stop'))).toEqual({
      stopped: false,
      reason: 'already-stopping',
    });
    // The streaming process knows the relayed message stopped it (not a second stop).
    expect(streaming.stops.stoppedFor('300000000000000001')).toBe(true);
    expect(other.stops.stoppedFor('300000000000000001')).toBe(false);
  });

  it('leaves a question that merely mentions stopping to be answered', async () => {
    const { other, live } = twoProcesses();
    const decision = await other.stops.considerElsewhere(saying('how do I stop my cat biting?'));
    expect(decision).toEqual({ stopped: false, reason: 'not-a-stop' });
    expect(live.signal.aborted).toBe(false);
  });

  it('is the registry alone, with nothing sent, when no other process shares the bus', async () => {
    const { bus, other, streaming, live } = twoProcesses({ shared: false });
    const sent: unknown[] = [];
    bus.subscribe(CONTROL_TOPICS.stop, (payload) => sent.push(payload));
    expect(
      await other.stops.stopByCommand({
        channelId: CHANNEL,
        authorId: ALICE,
        authorIsModerator: false,
        by: 'command',
      }),
    ).toEqual({ stopped: false, reason: 'no-live-turn' });
    expect(await other.stops.considerElsewhere(saying('stop'))).toBeUndefined();
    expect(sent).toEqual([]);
    expect(live.signal.aborted).toBe(false);
    await streaming.stops.stopByCommand({
      channelId: CHANNEL,
      authorId: ALICE,
      authorIsModerator: false,
      by: 'command',
    });
    expect(live.signal.aborted).toBe(true);
  });

  describe('the Stop button (a stop naming its turn)', () => {
    const press = (turnId: string, authorId = ALICE) =>
      ({ channelId: CHANNEL, authorId, authorIsModerator: false, by: 'button', turnId }) as const;

    it('stops the named turn where it streams, with the same rule as /stop', async () => {
      const { other, live } = twoProcesses();
      expect(await other.stops.stopByCommand(press('turn-1', BOB))).toEqual({
        stopped: false,
        reason: 'not-requester',
      });
      expect(live.signal.aborted).toBe(false);
      expect(await other.stops.stopByCommand(press('turn-1'))).toEqual({
        stopped: true,
        turnId: 'turn-1',
      });
      expect(live.signal.reason).toMatchObject({ kind: 'command-stop', authorId: ALICE });
    });

    it('stops nothing for an ended turn, even with a newer one live in the channel', async () => {
      const { other, clock, live } = twoProcesses();
      const asked = other.stops.stopByCommand(press('turn-0'));
      await settle();
      // The streaming process stays silent (its turn is another): the asker waits it out.
      expect(clock.pendingSleeps()).toEqual([REMOTE_STOP_ANSWER_MS]);
      await clock.advance(REMOTE_STOP_ANSWER_MS);
      expect(await asked).toEqual({ stopped: false, reason: 'no-live-turn' });
      expect(live.signal.aborted).toBe(false);
    });

    it('is not answered by a process whose live turn in the channel is another', async () => {
      const bus = new LocalControlBus({ shared: true });
      const clock = new ManualClock();
      const process = (instanceId: string) => {
        const registry = new StopRegistry();
        const stops = new CrossProcessStops({
          stops: registry,
          bus,
          clock,
          logger: silentLogger,
          instanceId,
        });
        stops.start();
        return { registry, stops };
      };
      // Subscribed first, so it would be the first to answer if it answered at all.
      const busy = process('instance-c');
      const streaming = process('instance-a');
      const heard = process('instance-b');
      const other = busy.registry.begin({
        channelId: CHANNEL,
        turnId: 'turn-9',
        requesterIds: [BOB],
      });
      const live = streaming.registry.begin({
        channelId: CHANNEL,
        turnId: 'turn-1',
        requesterIds: [ALICE],
      });
      expect(await heard.stops.stopByCommand(press('turn-1'))).toEqual({
        stopped: true,
        turnId: 'turn-1',
      });
      expect(live.signal.aborted).toBe(true);
      expect(other.signal.aborted).toBe(false);
    });

    it('publishes nothing when the named turn streams in the process that heard the press', async () => {
      const { bus, streaming, live } = twoProcesses();
      const sent: unknown[] = [];
      bus.subscribe(CONTROL_TOPICS.stop, (payload) => sent.push(payload));
      expect(await streaming.stops.stopByCommand(press('turn-1'))).toMatchObject({ stopped: true });
      expect(live.signal.aborted).toBe(true);
      expect(sent).toEqual([]);
    });
  });

  it('ignores a malformed stop message', async () => {
    const { bus, live } = twoProcesses();
    await bus.publish(CONTROL_TOPICS.stop, { channelId: CHANNEL, by: 'command' });
    await bus.publish(CONTROL_TOPICS.stop, 'stop everything');
    expect(live.signal.aborted).toBe(false);
  });
});
