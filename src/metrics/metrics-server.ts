import { createServer, Server } from 'node:http';
import type { Metrics } from './metrics';

export const METRICS_PATH = '/metrics';

/**
 * `GET /metrics` on a port of its own (METRICS_PORT), apart from the public API: scrapes need
 * no token, count against no quota and are never audited, and a NetworkPolicy can let only
 * the monitoring namespace reach them. Everything else on this port is 404.
 */
export async function startMetricsServer(metrics: Metrics, port: number, host?: string): Promise<Server> {
  return listen(metricsServer(metrics), port, host);
}

/**
 * The metrics server of an entry point (the API, the worker), or none when METRICS_PORT=off, on
 * METRICS_HOST (loopback unless a deployment opens it: the metrics name every route and tenant
 * count and the Node version, for whoever reaches the port). A port already taken (the API and
 * the worker on one machine, both on the default) is a warning, not a failed start: the process
 * serves without its metrics rather than not at all.
 */
export async function serveMetrics(
  metrics: Metrics,
  port: number | undefined,
  host: string,
  warn: (line: string) => void,
): Promise<Server | undefined> {
  if (port === undefined) return undefined;
  try {
    return await startMetricsServer(metrics, port, host);
  } catch (error) {
    warn(
      `metrics are not served: port ${port} ${(error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'is taken' : String(error)} (METRICS_PORT)`,
    );
    return undefined;
  }
}

function metricsServer(metrics: Metrics): Server {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  server.keepAliveTimeout = 65_000;
  return server;
}

async function listen(server: Server, port: number, host?: string): Promise<Server> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  return server;
}
