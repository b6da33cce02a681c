import { Client } from 'pg';
import { spawnWorker } from '../support/cli';
import { withDeadline } from '../support/export-stream';
import { startFaultsCluster, stopFaultsCluster } from '../support/postgres-control';
import { assertTestDatabase, createTestApp } from '../support/test-app';

const REFUSAL = /ALLOWS PREPARED TRANSACTIONS \(max_prepared_transactions = 2\).*Refusing to start.*change feed.*max_prepared_transactions = 0/s;

/** `SHOW max_prepared_transactions` on the cluster of `url`. */
async function maxPreparedTransactions(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query('SHOW max_prepared_transactions')).rows[0].max_prepared_transactions);
  } finally {
    await client.end();
  }
}

/**
 * The settings of PostgreSQL the service refuses to start on. max_prepared_transactions takes a
 * restart to change: the disposable faults cluster (this worker's own) is restarted with it, and
 * restarted as it was afterwards.
 */
describe('database settings checked at start', () => {
  it('starts on a database without prepared transactions (max_prepared_transactions = 0, the default)', async () => {
    expect(await maxPreparedTransactions(assertTestDatabase(process.env.TEST_DATABASE_URL))).toBe(0);
    const app = await createTestApp();
    await app.close();
  });

  describe('on a PostgreSQL with max_prepared_transactions = 2', () => {
    beforeAll(async () => {
      await stopFaultsCluster();
      await startFaultsCluster({ max_prepared_transactions: '2' });
    }, 120_000);
    afterAll(async () => {
      await stopFaultsCluster();
      await startFaultsCluster();
    }, 120_000);

    it('the API refuses to start, saying why and what to do', async () => {
      expect(await maxPreparedTransactions(assertTestDatabase(process.env.TEST_FAULTS_DATABASE_URL))).toBe(2);
      const started = createTestApp({ faults: true });
      try {
        await expect(started).rejects.toThrow(REFUSAL);
      } finally {
        await started.then((app) => app.close()).catch(() => undefined); // started after all: closed
      }
    });

    it('the worker (npm run worker) exits 1 with the same message, on one line [waits]', async () => {
      const worker = spawnWorker({
        DATABASE_URL: assertTestDatabase(process.env.TEST_FAULTS_DATABASE_URL),
        MIGRATION_DATABASE_URL: assertTestDatabase(process.env.TEST_FAULTS_MIGRATION_DATABASE_URL),
        METRICS_PORT: 'off',
      });
      let stderr = '';
      worker.stderr!.on('data', (d) => (stderr += d));
      worker.stdout!.resume();
      const exited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
      try {
        expect(await withDeadline(exited, 60_000, 'the worker did not exit')).toBe(1);
      } finally {
        if (worker.exitCode === null) worker.kill('SIGKILL');
      }
      expect(stderr).toMatch(REFUSAL);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    });
  });
});
