import { Client } from 'pg';
import { loadConfig } from '../../src/config/app-config';
import { DatabaseUrls } from '../../src/config/database-urls';
import { migrate } from '../../src/database/migrate';
import { ActivityLog, demoBanner, seedDemoOnFirstStart, startDemoActivity } from '../../src/seeding/first-start';
import { assertTestDatabase, eventually } from '../support/test-app';

/** `npm start` on an empty database: what main.ts does before serving. */
describe('first start', () => {
  const name = 'first_start_test';
  const inDatabase = (url: string) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  const superUrl = assertTestDatabase(process.env.TEST_DATABASE_URL) && process.env.TEST_SUPER_DATABASE_URL!;
  const ownerUrl = inDatabase(process.env.TEST_MIGRATION_DATABASE_URL!);
  const apiUrl = inDatabase(process.env.TEST_DATABASE_URL!);

  const asSuperuser = async (sql: string) => {
    const su = new Client({ connectionString: superUrl });
    await su.connect();
    try {
      await su.query(sql);
    } finally {
      await su.end();
    }
  };

  beforeAll(async () => {
    await asSuperuser(`CREATE DATABASE ${name} OWNER "${decodeURIComponent(new URL(ownerUrl).username)}"`);
    await migrate(new DatabaseUrls(apiUrl, ownerUrl, apiUrl));
  }, 60_000);
  afterAll(() => asSuperuser(`DROP DATABASE ${name} WITH (FORCE)`));

  it('seeds the demo once, on the empty database only, and prints working credentials', async () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    const demo = await seedDemoOnFirstStart(ownerUrl, config);
    expect(demo).toEqual({
      company_id: expect.stringMatching(/^cmp_/),
      client_id: expect.stringMatching(/^cli_/),
      client_secret: expect.stringMatching(/^secret_/),
    });
    expect(await seedDemoOnFirstStart(ownerUrl, config)).toBeUndefined();

    const banner = demoBanner(demo!, 3000);
    expect(banner).toContain(`export CLIENT_ID=${demo!.client_id} CLIENT_SECRET=${demo!.client_secret}`);
    expect(banner).toContain(
      'curl -s -X POST http://localhost:3000/oauth/token -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials',
    );
    expect(banner).toContain('curl -s "http://localhost:3000/v1/meetings?limit=2" -H "Authorization: Bearer $TOKEN"');
    seeded = demo!.company_id;
  }, 60_000);
  let seeded: string;

  /** What the demo activity logged, by level. */
  const logged = () => {
    const lines: Record<'info' | 'debug' | 'warn', string[]> = { info: [], debug: [], warn: [] };
    const log: ActivityLog = {
      info: (fields, message) => lines.info.push(`${message} ${JSON.stringify(fields)}`),
      debug: (message) => lines.debug.push(message),
      warn: (message) => lines.warn.push(message),
    };
    return { lines, log };
  };
  const connections = async () => {
    const su = new Client({ connectionString: superUrl });
    await su.connect();
    try {
      return (await su.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'demo-activity'`)).rows[0].n;
    } finally {
      await su.end();
    }
  };

  it('DEMO_ACTIVITY=1: writes into the demo company until stopped, then ends its transactions and connections', async () => {
    for (const company of [seeded, undefined]) {
      // Just seeded, or found again on a later start (the newest demo company).
      const { lines, log } = logged();
      const activity = await startDemoActivity(ownerUrl, company, log);
      expect(activity?.company_id).toBe(seeded);
      await eventually(async () => lines.debug.some((line) => / committed /.test(line)), 60_000);
      await activity!.stop();
      expect(lines.warn).toEqual([]);
      expect(lines.info.at(-1)).toMatch(new RegExp(`^demo activity stopped \\{"company_id":"${seeded}".*"committed":[1-9]`));
      expect(await connections()).toBe(0);
    }
  }, 60_000);

  it('DEMO_ACTIVITY=1 without a demo company says so and writes nothing', async () => {
    const empty = `${name}_empty`;
    const there = (url: string) => Object.assign(new URL(url), { pathname: `/${empty}` }).toString();
    const other = there(ownerUrl);
    await asSuperuser(`CREATE DATABASE ${empty} OWNER "${decodeURIComponent(new URL(ownerUrl).username)}"`);
    try {
      await migrate(new DatabaseUrls(there(apiUrl), other, there(apiUrl)));
      const { lines, log } = logged();
      expect(await startDemoActivity(other, undefined, log)).toBeUndefined();
      expect(lines.warn).toEqual([expect.stringMatching(/^DEMO_ACTIVITY=1: no demo company/)]);
      expect(await connections()).toBe(0);
    } finally {
      await asSuperuser(`DROP DATABASE ${empty} WITH (FORCE)`);
    }
  }, 60_000);
});
