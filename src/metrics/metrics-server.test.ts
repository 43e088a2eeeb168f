import { describe, expect, it, onTestFinished } from 'vitest';
import { silentLogger } from '../core/logger.ts';
import { startMetricsServer } from './metrics-server.ts';

const metrics = { contentType: 'text/plain', render: () => Promise.resolve('') };

describe('/healthz', () => {
  it('says ok or unhealthy as text without details', async () => {
    const server = await startMetricsServer({ port: 0, logger: silentLogger, metrics });
    onTestFinished(() => server.close());
    const response = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok\n');
  });

  it('reports each shard’s gateway state and heartbeat latency as JSON, 503 when one is down', async () => {
    let healthy = true;
    const server = await startMetricsServer({
      port: 0,
      logger: silentLogger,
      metrics,
      health: () => Promise.resolve(healthy),
      details: () => ({
        pid: 1234,
        shards: [{ shard: 2, state: healthy ? 'connected' : 'failed', heartbeatLatencyMs: 41 }],
      }),
    });
    onTestFinished(() => server.close());
    const url = `http://127.0.0.1:${server.port}/healthz`;
    const up = await fetch(url);
    expect(up.headers.get('content-type')).toBe('application/json');
    expect(await up.json()).toEqual({
      status: 'ok',
      pid: 1234,
      shards: [{ shard: 2, state: 'connected', heartbeatLatencyMs: 41 }],
    });
    healthy = false;
    const down = await fetch(url);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'unhealthy', shards: [{ state: 'failed' }] });
  });
});
