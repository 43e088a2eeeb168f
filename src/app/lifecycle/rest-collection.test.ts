import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import {
  collectAtRest,
  GROWN_YOUNG_GENERATION_BYTES,
  MIN_INTERVAL_MS,
  POLL_MS,
  QUIET_BUSY_SHARE,
  RestCollection,
  type RestCollectionProbes,
} from './rest-collection.ts';

/** Probes whose readings the test sets; counts the collections. */
function fakeProbes(): RestCollectionProbes & {
  busy: number;
  young: number;
  collections: number;
  busyReads: number;
} {
  return {
    busy: 0,
    young: GROWN_YOUNG_GENERATION_BYTES * 4,
    collections: 0,
    busyReads: 0,
    busyShare() {
      this.busyReads += 1;
      return this.busy;
    },
    youngGenerationBytes() {
      return this.young;
    },
    collect() {
      this.collections += 1;
      this.young = 300 * 1024;
      return { rssBefore: 112 * 1024 * 1024, rssAfter: 91 * 1024 * 1024 };
    },
  };
}

function policyOver(
  probes: RestCollectionProbes,
  options: { clock?: ManualClock; atRest?: () => boolean } = {},
): RestCollection {
  return new RestCollection({
    clock: options.clock ?? new ManualClock(),
    probes,
    logger: silentLogger,
    atRest: options.atRest ?? (() => true),
  });
}

describe('RestCollection', () => {
  it('collects after a quiet poll once the young generation has grown', () => {
    const probes = fakeProbes();
    const policy = policyOver(probes);
    policy.poll();
    expect(probes.collections).toBe(1);
  });

  it('does not collect while the event loop is busy', () => {
    const probes = fakeProbes();
    probes.busy = QUIET_BUSY_SHARE + 0.01;
    const policy = policyOver(probes);
    for (let poll = 0; poll < 10; poll += 1) policy.poll();
    expect(probes.collections).toBe(0);
    probes.busy = QUIET_BUSY_SHARE;
    policy.poll();
    expect(probes.collections).toBe(1);
  });

  it('does not collect while the application has something under way (a turn, a call)', () => {
    const probes = fakeProbes();
    let underWay = true;
    const policy = policyOver(probes, { atRest: () => !underWay });
    for (let poll = 0; poll < 10; poll += 1) policy.poll();
    expect(probes.collections).toBe(0);
    underWay = false;
    policy.poll();
    expect(probes.collections).toBe(1);
  });

  it('does not collect when the young generation has not grown', () => {
    const probes = fakeProbes();
    probes.young = GROWN_YOUNG_GENERATION_BYTES - 1;
    const policy = policyOver(probes);
    policy.poll();
    expect(probes.collections).toBe(0);
  });

  it('collects at most once per interval, however often the process falls quiet', async () => {
    const clock = new ManualClock();
    const probes = fakeProbes();
    const policy = policyOver(probes, { clock });
    policy.poll();
    probes.young = GROWN_YOUNG_GENERATION_BYTES * 4; // traffic grew it again
    await clock.advance(MIN_INTERVAL_MS - 1);
    policy.poll();
    expect(probes.collections).toBe(1);
    await clock.advance(1);
    policy.poll();
    expect(probes.collections).toBe(2);
  });

  it("starts measuring at its creation and leaves the collection's own time out", () => {
    const probes = fakeProbes();
    const policy = policyOver(probes);
    expect(probes.busyReads).toBe(1);
    policy.poll();
    // one read to decide, one after collecting so the next poll measures only its own span
    expect(probes.busyReads).toBe(3);
  });
});

describe('collectAtRest', () => {
  it('polls every POLL_MS until its signal aborts', async () => {
    const clock = new ManualClock();
    const probes = fakeProbes();
    probes.busy = 1;
    const stop = new AbortController();
    const loop = collectAtRest({
      clock,
      probes,
      logger: silentLogger,
      atRest: () => true,
      signal: stop.signal,
    });
    await clock.advance(POLL_MS * 3);
    expect(probes.busyReads).toBe(4); // the baseline and three polls
    probes.busy = 0;
    await clock.advance(POLL_MS);
    expect(probes.collections).toBe(1);
    stop.abort();
    await loop;
    await clock.advance(POLL_MS * 3);
    expect(probes.busyReads).toBe(6);
  });
});
