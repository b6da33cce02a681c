// First: with OTEL_EXPORTER_OTLP_ENDPOINT set, the instrumentations patch modules before they load.
import { tracing } from './tracing';
import 'reflect-metadata';
import { Logger } from 'nestjs-pino';
import pino from 'pino';
import { createApp } from './app';
import { loadConfig } from './config/app-config';
import { onTermination, runEntryPoint } from './entry-point';
import { prepareRuntime } from './runtime';
import { migrate } from './database/migrate';
import { ShutdownState } from './common/http/shutdown-state';
import type { DemoActivity } from './seeding/first-start';
import { Metrics } from './metrics/metrics';
import { serveMetrics } from './metrics/metrics-server';

async function main(): Promise<void> {
  const config = loadConfig();
  const boot = pino({ level: config.logLevel, base: { context: 'Bootstrap' } });
  const runtime = await prepareRuntime(config, (line) => boot.debug(line));
  let banner: string | undefined;
  let startActivity: (() => Promise<DemoActivity | undefined>) | undefined;
  if (runtime.embedded) {
    // The embedded database belongs to this process: keep its schema current on every start.
    const applied = await migrate(runtime.urls);
    if (applied.length) boot.info({ applied }, 'migrations applied');
    // A newcomer's first start: demo data and a client to try it with. Loaded only here, so a
    // production process never holds the seeders and faker's locale data (about 30 MB).
    const { demoBanner, seedDemoOnFirstStart, startDemoActivity } = await import('./seeding/first-start');
    const demo = await seedDemoOnFirstStart(runtime.urls.owner, config);
    if (demo) banner = demoBanner(demo, config.port);
    if (config.demoActivity) startActivity = () => startDemoActivity(runtime.urls.owner, demo?.company_id, boot);
  } else if (config.demoActivity) {
    boot.warn('DEMO_ACTIVITY=1 is ignored: it writes into the demo company of the embedded database (demo mode) only');
  }

  const app = await createApp(runtime);
  await app.listen(config.port);
  const logger = app.get(Logger);
  logger.log(`Conversation Read API listening on http://localhost:${config.port} (docs at /docs)`, 'Bootstrap');
  const metricsServer = await serveMetrics(app.get(Metrics), config.metricsPort, config.metricsHost, (line) =>
    logger.warn(line, 'Bootstrap'),
  );
  if (metricsServer)
    logger.log(
      `metrics on http://${config.metricsHost.includes(':') ? `[${config.metricsHost}]` : config.metricsHost}:${config.metricsPort}/metrics`,
      'Bootstrap',
    );
  if (banner) process.stdout.write(`${banner}\n`);
  const activity = await startActivity?.();

  onTermination(async (signal) => {
    logger.log(`${signal} received: readiness is now 503, draining`, 'Bootstrap');
    app.get(ShutdownState).begin();
    const activityStopped = activity?.stop(); // ends while the server drains, and before the database closes
    await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
    // Stop accepting and let in-flight requests finish before anything they need is closed:
    // Nest's own close() ends the database pools before the HTTP server. Since shutdown began
    // every answer says `Connection: close`, so busy keep-alive connections end with their
    // current request; idle ones close now; past the grace, whatever is left is cut.
    const server = app.getHttpServer();
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = setTimeout(() => {
      logger.warn(`shutdown grace of ${config.shutdownGraceMs} ms over: closing the remaining connections`, 'Bootstrap');
      server.closeAllConnections();
    }, config.shutdownGraceMs);
    await drained;
    clearTimeout(grace);
    await activityStopped;
    metricsServer?.close();
    await app.close(); // modules: pools, Redis, audit writer (its queued rows are written first)
    await tracing?.flush();
    await runtime.embedded?.stop();
    process.exit(0);
  });
}

runEntryPoint(main, 'startup');
