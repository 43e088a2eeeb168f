import { describe, expect, it } from 'vitest';
import { ManualClock } from '../stream/testing/manual-clock.ts';
import { GATEWAY_DOWN_GRACE_MS, GatewayHealth } from './gateway-health.ts';

describe('GatewayHealth', () => {
  it('is healthy while connecting for up to 30 s after start, then not', async () => {
    const clock = new ManualClock();
    const health = new GatewayHealth({ clock });
    expect(health.healthy()).toBe(true);
    await clock.advance(GATEWAY_DOWN_GRACE_MS);
    expect(health.healthy()).toBe(true);
    await clock.advance(1);
    expect(health.healthy()).toBe(false);
    health.connected();
    expect(health.healthy()).toBe(true);
  });

  it('rides out a short disconnect but reports one longer than 30 s', async () => {
    const clock = new ManualClock();
    const health = new GatewayHealth({ clock });
    health.connected();
    await clock.advance(60_000);
    health.disconnected();
    await clock.advance(20_000);
    health.disconnected();
    expect(health.healthy()).toBe(true);
    await clock.advance(10_001);
    expect(health.healthy()).toBe(false);
    health.connected();
    expect(health.healthy()).toBe(true);
  });

  it('is unhealthy at once and for good after a fatal close', () => {
    const health = new GatewayHealth({ clock: new ManualClock() });
    health.connected();
    health.failed();
    health.connected();
    expect(health.healthy()).toBe(false);
    expect(health.state).toBe('failed');
  });
});

describe('GatewayHealth per shard', () => {
  it('is healthy only while every shard of the process is, and reports each with its latency', async () => {
    const clock = new ManualClock();
    const health = new GatewayHealth({ clock, shardIds: [2, 3] });
    health.connected(2);
    health.heartbeat(2, 41);
    await clock.advance(GATEWAY_DOWN_GRACE_MS + 1);
    expect(health.healthy()).toBe(false);
    expect(health.state).toBe('connecting');
    expect(health.report()).toEqual([
      { shard: 2, state: 'connected', healthy: true, heartbeatLatencyMs: 41 },
      { shard: 3, state: 'connecting', healthy: false, heartbeatLatencyMs: null },
    ]);
    health.connected(3);
    expect(health.healthy()).toBe(true);
    health.failed(3);
    expect(health.healthy()).toBe(false);
    expect(health.state).toBe('failed');
  });
});
