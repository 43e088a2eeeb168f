import { describe, expect, it } from 'vitest';
import { noMetrics, type BotMetrics } from '../../core/metrics.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { timeStop } from './stop-latency.ts';

function recordingMetrics(): { metrics: BotMetrics; stops: unknown[] } {
  const stops: unknown[] = [];
  return { metrics: { ...noMetrics, stopLatency: (stop) => stops.push(stop) }, stops };
}

describe('timeStop', () => {
  it('reports the time from a stop phrase to the end of the stream', async () => {
    const clock = new ManualClock();
    const { metrics, stops } = recordingMetrics();
    const controller = new AbortController();
    const finish = timeStop({ signal: controller.signal, clock, metrics });
    await clock.advance(1_000);
    controller.abort({ kind: 'stop-request', turnId: 't' });
    await clock.advance(240);
    finish();
    expect(stops).toEqual([{ kind: 'phrase', milliseconds: 240 }]);
  });

  it('tells /stop from a phrase, and reports nothing for a turn that was not stopped', () => {
    const clock = new ManualClock();
    const { metrics, stops } = recordingMetrics();
    const stopped = new AbortController();
    const finishStopped = timeStop({ signal: stopped.signal, clock, metrics });
    stopped.abort({ kind: 'command-stop', turnId: 't' });
    finishStopped();
    timeStop({ signal: new AbortController().signal, clock, metrics })();
    const other = new AbortController();
    const finishOther = timeStop({ signal: other.signal, clock, metrics });
    other.abort(new Error('shutting down'));
    finishOther();
    expect(stops).toEqual([{ kind: 'command', milliseconds: 0 }]);
  });
});
