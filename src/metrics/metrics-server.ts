import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../core/logger.ts';
import { MetricsRegistry } from './metrics-registry.ts';

export interface MetricsServer {
  readonly registry: MetricsRegistry;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves /metrics (Prometheus text format) and /healthz on METRICS_PORT. `health` reports
 * readiness (Discord connected, database reachable); /healthz answers 503 while it is false.
 */
export async function startMetricsServer(options: {
  port: number;
  logger: Logger;
  registry?: MetricsRegistry;
  host?: string;
  health?: () => Promise<boolean>;
}): Promise<MetricsServer> {
  const registry = options.registry ?? new MetricsRegistry();
  const server = createServer((request, response) => {
    if (request.url === '/metrics') {
      response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      response.end(registry.render());
      return;
    }
    if (request.url === '/healthz') {
      const health = options.health ?? (() => Promise.resolve(true));
      health().then(
        (healthy) => {
          response.writeHead(healthy ? 200 : 503, { 'content-type': 'text/plain' });
          response.end(healthy ? 'ok\n' : 'unhealthy\n');
        },
        () => {
          response.writeHead(503, { 'content-type': 'text/plain' });
          response.end('unhealthy\n');
        },
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  options.logger.info({ port }, 'metrics listening on /metrics and /healthz');
  return {
    registry,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
