/**
 * Jest setup file of the medium and e2e projects: gives each test file the databases of the
 * worker it runs in (global setup started a set per worker: test/support/global-setup.ts), as the
 * `TEST_*` variables every helper reads. A file run in band is worker 1.
 */
export const WORKER_DATABASES = 'TEST_WORKER_DATABASES';

const all = process.env[WORKER_DATABASES];
if (all) {
  const sets = JSON.parse(all) as Array<Record<string, string>>;
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const mine = sets[worker - 1];
  if (!mine) throw new Error(`no databases for Jest worker ${worker} (global setup started ${sets.length})`);
  Object.assign(process.env, mine);
}
