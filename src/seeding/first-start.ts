import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { dataSourceOptions } from '../database/data-source-options';
import { DemoCredentials, DemoSeeder } from './demo-seeder';

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
    'Demo API client with every scope; the secret is shown only now:',
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
