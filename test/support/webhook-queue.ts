import { DataSource } from 'typeorm';
import { QUEUE } from '../../src/webhooks/webhook.vocabulary';
import { sleep } from './test-app';

/**
 * Samples, every 50 ms until stopped, the most batches one endpoint had in the queue (waiting,
 * retrying or running) at once. Before the first worker installed pg-boss's schema in this
 * database there is no queue: nothing is outstanding.
 */
export function outstandingSampler(db: DataSource): { stop: () => Promise<number> } {
  let most = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const [{ installed }] = await db.query<Array<{ installed: boolean }>>(`SELECT to_regclass('pgboss.job') IS NOT NULL AS installed`);
      const rows = !installed
        ? []
        : await db.query<Array<{ n: number }>>(
            `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state < 'completed' GROUP BY data->>'endpoint_id'`,
            [QUEUE],
          );
      for (const { n } of rows) most = Math.max(most, n);
      await sleep(50);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return most;
    },
  };
}
