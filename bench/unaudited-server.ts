import 'reflect-metadata';
import { createApp } from '../src/app';
import { AuditTrail } from '../src/audit/audit-trail';
import { loadConfig } from '../src/config/app-config';
import { prepareRuntime } from '../src/runtime';

/**
 * Bench only, never deployed: the service exactly as `src/main.ts` builds it, except that
 * the audit write resolves at once. The audit event is still built and handed over, so the
 * difference to the real service is the write and its commit alone ("measured apart").
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(await prepareRuntime(config));
  const trail = app.get(AuditTrail);
  trail.record = () => Promise.resolve();
  trail.recordBestEffort = () => undefined;
  await app.listen(config.port);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`unaudited bench server failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
