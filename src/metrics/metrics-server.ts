import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../core/logger.ts';

/** What /metrics serves (PrometheusMetrics implements it). */
export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves /metrics (Prometheus text format) and /healthz on METRICS_PORT. `health` reports
 * readiness (every shard's gateway connected, database reachable); /healthz answers 503 while
 * it is false.
 */
export async function startMetricsServer(options: {
  port: number;
  logger: Logger;
  metrics: MetricsSource;
  /** Bind address (METRICS_HOST); default loopback, so nothing is exposed by accident. */
  host?: string;
  health?: () => Promise<boolean>;
  /**
   * What /healthz says besides ok/unhealthy (each shard's gateway state and heartbeat latency,
   * the process): with it the body is JSON `{ status, ...details }`.
   */
  details?: () => Readonly<Record<string, unknown>>;
}): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    if (request.url === '/metrics') {
      options.metrics.render().then(
        (text) => {
          response.writeHead(200, { 'content-type': options.metrics.contentType });
          response.end(text);
        },
        () => {
          response.writeHead(500, { 'content-type': 'text/plain' });
          response.end('metrics failed\n');
        },
      );
      return;
    }
    if (request.url === '/healthz') {
      const health = options.health ?? (() => Promise.resolve(true));
      health().then(
        (healthy) => {
          const status = healthy ? 'ok' : 'unhealthy';
          const details = options.details?.();
          response.writeHead(healthy ? 200 : 503, {
            'content-type': details === undefined ? 'text/plain' : 'application/json',
          });
          response.end(
            details === undefined ? `${status}\n` : `${JSON.stringify({ status, ...details })}\n`,
          );
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
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  options.logger.info(
    { host: options.host ?? '127.0.0.1', port },
    'metrics listening on /metrics and /healthz',
  );
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
