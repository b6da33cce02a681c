import { Client } from 'pg';
import { loadConfig } from '../../src/config/app-config';
import { DatabaseUrls } from '../../src/config/database-urls';
import { migrate } from '../../src/database/migrate';
import { demoBanner, seedDemoOnFirstStart } from '../../src/seeding/first-start';
import { assertTestDatabase } from '../support/test-app';

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
  }, 60_000);
});
