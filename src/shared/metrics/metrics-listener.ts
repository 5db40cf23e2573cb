import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import type { Metrics } from './metrics.js';

export interface MetricsListener {
  /** Where Prometheus scrapes: `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in the Prometheus text format, on a listener of its own (METRICS_PORT) beside the
 * public one: a port that the network can keep internal, and a scrape that never queues behind API
 * requests in Express. Anything else answers 404.
 */
export async function startMetricsListener(metrics: Metrics, port: number, host: string, logger: Logger): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'metrics could not be collected');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The metrics could not be collected\n');
      },
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  server.listen(port, host);
  await once(server, 'listening');
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${bound}/metrics`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
