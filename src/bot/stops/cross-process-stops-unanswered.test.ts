import { describe, expect, it } from 'vitest';
import { LocalControlBus } from '../../core/control-bus.ts';
import { silentLogger } from '../../core/logger.ts';
import { StopRegistry, isStopRequest } from '../../stream/stop/stop-registry.ts';
import { ManualClock, settle } from '../../stream/testing/manual-clock.ts';
import { recordingLogger } from '../../../tests/tools/support/recording-logger.ts';
import { CrossProcessStops, REMOTE_STOP_ANSWER_MS } from './cross-process-stops.ts';
import type { StreamingQuery } from './cross-process-stops.ts';
import { BusyProcessBus } from './testing/busy-process-bus.ts';

const CHANNEL = '100000000000000001';
const QUIET_CHANNEL = '100000000000000002';
const ALICE = '200000000000000001';

/**
 * Two processes on one bus: the streaming one is busy (hears nothing until `catchUp`), the
 * other hears `/stop` or the Stop button. `streamingElsewhere` plays the turns journal: the
 * streaming process's live turn, as its `streaming` row shows it.
 */
function busyStreamingProcess(
  options: {
    journal?: (query: StreamingQuery) => Promise<boolean>;
    logger?: typeof silentLogger;
  } = {},
) {
  const bus = new LocalControlBus({ shared: true });
  const clock = new ManualClock();
  const busy = new BusyProcessBus(bus);
  const registry = new StopRegistry();
  new CrossProcessStops({
    stops: registry,
    bus: busy,
    clock,
    logger: silentLogger,
    instanceId: 'instance-a',
  }).start();
  const asked: StreamingQuery[] = [];
  const journal =
    options.journal ??
    ((query: StreamingQuery) => {
      const live = registry.liveTurn(query.channelId);
      return Promise.resolve(
        live !== undefined && (query.turnId === undefined || query.turnId === live.turnId),
      );
    });
  const other = new CrossProcessStops({
    stops: new StopRegistry(),
    bus,
    clock,
    logger: options.logger ?? silentLogger,
    instanceId: 'instance-b',
    streamingElsewhere: (query) => {
      asked.push(query);
      return journal(query);
    },
  });
  other.start();
  const live = registry.begin({ channelId: CHANNEL, turnId: 'turn-1', requesterIds: [ALICE] });
  /** Asks, waits out the answer wait on the manual clock, and returns the decision. */
  async function unanswered<T>(asking: Promise<T>): Promise<T> {
    await settle();
    expect(clock.pendingSleeps()).toEqual([REMOTE_STOP_ANSWER_MS]);
    await clock.advance(REMOTE_STOP_ANSWER_MS);
    return asking;
  }
  return { other, busy, live, asked, unanswered };
}

const stop = (channelId = CHANNEL) =>
  ({ channelId, authorId: ALICE, authorIsModerator: false, by: 'command' }) as const;

describe('CrossProcessStops when the streaming process does not answer in time', () => {
  it('says /stop was sent (not "nothing to stop"), and the late stop still stops the reply', async () => {
    const { other, busy, live, asked, unanswered } = busyStreamingProcess();
    const decision = await unanswered(other.stopByCommand(stop()));
    expect(decision).toEqual({ stopped: false, reason: 'unconfirmed' });
    expect(asked).toEqual([{ channelId: CHANNEL }]);
    expect(live.signal.aborted).toBe(false);
    expect(busy.waiting).toBe(1);
    busy.catchUp();
    expect(live.signal.aborted).toBe(true);
    expect(live.signal.reason).toMatchObject({ kind: 'command-stop', authorId: ALICE });
  });

  it('says a Stop press was sent, asking the journal about that one turn', async () => {
    const { other, busy, live, asked, unanswered } = busyStreamingProcess();
    const press = { ...stop(), by: 'button', turnId: 'turn-1' } as const;
    expect(await unanswered(other.stopByCommand(press))).toEqual({
      stopped: false,
      reason: 'unconfirmed',
    });
    expect(asked).toEqual([{ channelId: CHANNEL, turnId: 'turn-1' }]);
    busy.catchUp();
    expect(live.signal.aborted).toBe(true);
  });

  it('still finds nothing to stop where the journal shows no reply streaming', async () => {
    const { other, unanswered } = busyStreamingProcess();
    expect(await unanswered(other.stopByCommand(stop(QUIET_CHANNEL)))).toEqual({
      stopped: false,
      reason: 'no-live-turn',
    });
    // A press on an ended reply: its turn no longer streams, though another one does.
    const press = { ...stop(), by: 'button', turnId: 'turn-0' } as const;
    expect(await unanswered(other.stopByCommand(press))).toEqual({
      stopped: false,
      reason: 'no-live-turn',
    });
  });

  it('takes the answer that comes while the journal is read', async () => {
    let answerJournal: (live: boolean) => void = () => undefined;
    const journal = () => new Promise<boolean>((resolve) => (answerJournal = resolve));
    const { other, busy, live, unanswered } = busyStreamingProcess({ journal });
    const asking = other.stopByCommand(stop());
    await settle();
    await unanswered(Promise.resolve());
    busy.catchUp();
    await settle();
    answerJournal(true);
    expect(await asking).toEqual({ stopped: true, turnId: 'turn-1' });
    expect(live.signal.aborted).toBe(true);
  });

  it('falls back to "nothing to stop" when the journal cannot be read, and says why in the log', async () => {
    const logger = recordingLogger();
    const journal = () => Promise.reject(new Error('database away'));
    const { other, unanswered } = busyStreamingProcess({ journal, logger });
    expect(await unanswered(other.stopByCommand(stop()))).toEqual({
      stopped: false,
      reason: 'no-live-turn',
    });
    expect(logger.entries.map((entry) => entry.message)).toContain(
      'could not look for a reply streaming elsewhere',
    );
  });

  it('treats a stop said in the channel as sent, and the late stop still stops the reply', async () => {
    const { other, busy, live, unanswered } = busyStreamingProcess();
    const decision = await unanswered(
      other.considerElsewhere({
        channelId: CHANNEL,
        messageId: '300000000000000001',
        authorId: ALICE,
        authorName: 'Alice',
        content: '@Tomodachi stop',
        authorIsModerator: false,
        addressForms: ['@Tomodachi'],
      }),
    );
    expect(decision).toEqual({ stopped: false, reason: 'unconfirmed' });
    busy.catchUp();
    expect(isStopRequest(live.signal.reason)).toBe(true);
  });
});

describe('CrossProcessStops when the stop cannot be sent, or is slow to go', () => {
  /** A stop asked by a process whose publish does `publish`; the journal shows a live reply. */
  async function askWithPublish(publish: () => Promise<void>) {
    const bus = new LocalControlBus({ shared: true });
    bus.publish = publish;
    const clock = new ManualClock();
    const stops = new CrossProcessStops({
      stops: new StopRegistry(),
      bus,
      clock,
      logger: silentLogger,
      instanceId: 'instance-b',
      streamingElsewhere: () => Promise.resolve(true),
    });
    const asking = stops.stopByCommand(stop());
    await settle();
    await clock.advance(REMOTE_STOP_ANSWER_MS);
    return asking;
  }

  it('does not say it was sent: the old answer stands', async () => {
    expect(await askWithPublish(() => Promise.reject(new Error('database away')))).toEqual({
      stopped: false,
      reason: 'no-live-turn',
    });
  });

  it('says it was sent while the NOTIFY is still on its way (slow, not failed)', async () => {
    expect(await askWithPublish(() => new Promise<void>(() => undefined))).toEqual({
      stopped: false,
      reason: 'unconfirmed',
    });
  });
});
