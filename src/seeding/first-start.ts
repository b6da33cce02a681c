import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { dataSourceOptions } from '../database/data-source-options';
import { ActivitySimulator, activityDataSource, reportLine } from './activity-simulator';
import { DEMO_COMPANY_NAME, DemoCredentials, DemoSeeder } from './demo-seeder';

/**
 * First `npm start` on an empty embedded database: seed the demo company once, as the schema
 * owner, and return its credentials (the secret exists only in this answer). Undefined when
 * the database already holds a company.
 */
export async function seedDemoOnFirstStart(ownerUrl: string, config: AppConfig): Promise<DemoCredentials | undefined> {
  const db = await new DataSource(dataSourceOptions(ownerUrl, { poolSize: 2, applicationName: 'first-start-seed' })).initialize();
  try {
    const [{ empty }] = await db.query('SELECT NOT EXISTS (SELECT 1 FROM companies) AS empty');
    if (!empty) return undefined;
    return await DemoSeeder.over(db, config).seed();
  } finally {
    await db.destroy();
  }
}

/** What `npm start` prints after seeding: the credentials and the README's copy-paste pair. */
export function demoBanner(demo: DemoCredentials, port: number): string {
  const base = `http://localhost:${port}`;
  return [
    '',
    `Demo data seeded: company ${demo.company_id} (meetings, calls, e-mails and chats in every state).`,
    'Demo API client with every data scope (not audit.read); the secret is shown only now:',
    '',
    `  export CLIENT_ID=${demo.client_id} CLIENT_SECRET=${demo.client_secret}`,
    '',
    'Then, in the same shell:',
    '',
    `  TOKEN=$(curl -s -X POST ${base}/oauth/token -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
    `  curl -s "${base}/v1/meetings?limit=2" -H "Authorization: Bearer $TOKEN"`,
    '',
  ].join('\n');
}

/** `DEMO_ACTIVITY=1`: events per minute, and transactions open at once (a gentle pace a newcomer can follow). */
const DEMO_ACTIVITY = { rate: 20, maxOpen: 3 };

export interface DemoActivity {
  company_id: string;
  /** Ends the run (held transactions end their hold) and closes its connections. */
  stop(): Promise<void>;
}

/** Where the demo activity tells what it does. */
export interface ActivityLog {
  info(fields: object, message: string): void;
  debug(message: string): void;
  warn(message: string): void;
}

/**
 * `DEMO_ACTIVITY=1` in demo mode: the activity simulator writes into the demo company (the
 * one just seeded, else the newest demo company) at a gentle rate until stop(), so `GET
 * /v1/changes` has something to show. Undefined when there is no demo company.
 */
export async function startDemoActivity(ownerUrl: string, seeded: string | undefined, log: ActivityLog): Promise<DemoActivity | undefined> {
  const db = await activityDataSource(ownerUrl, 'demo-activity', DEMO_ACTIVITY.maxOpen);
  const [company]: Array<{ id: string; publicId: string }> = await db.query(
    `SELECT id::text AS id, public_id AS "publicId" FROM companies WHERE public_id = $1 OR ($1 IS NULL AND name = $2) ORDER BY id DESC LIMIT 1`,
    [seeded ?? null, DEMO_COMPANY_NAME],
  );
  if (!company) {
    log.warn('DEMO_ACTIVITY=1: no demo company to write into (seed one with `npm run cli -- seed:demo`)');
    await db.destroy();
    return undefined;
  }
  const stop = new AbortController();
  const run = new ActivitySimulator(db, DEMO_ACTIVITY.maxOpen)
    .run(
      company,
      { rate: DEMO_ACTIVITY.rate },
      {
        signal: stop.signal,
        onEvent: (r) => (r.outcome === 'failed' ? log.warn(reportLine(r)) : log.debug(reportLine(r))),
      },
    )
    .then(
      (summary) => log.info(summary, 'demo activity stopped'),
      (error: unknown) => log.warn(`demo activity stopped: ${error instanceof Error ? error.message : String(error)}`),
    )
    .finally(() => db.destroy());
  log.info(
    { company_id: company.publicId, per_minute: DEMO_ACTIVITY.rate },
    'demo activity: writing into the demo company like a capture system',
  );
  return {
    company_id: company.publicId,
    stop: async () => {
      stop.abort();
      await run;
    },
  };
}
