import { Client } from 'pg';
import { inTransaction } from '../common/transaction';
import { AUDIT_READ_FUNCTION, ensureAuditReadPath } from './audit-read-sql';
import { ensureAuditSchema } from './audit-schema';

/** Same server and database? (Roles may differ: the API role and the owner share a database.) */
export function sameDatabase(a: string, b: string): boolean {
  const [x, y] = [new URL(a), new URL(b)];
  return x.hostname === y.hostname && (x.port || '5432') === (y.port || '5432') && x.pathname === y.pathname;
}

/**
 * Prepares a separate audit database (AUDIT_DATABASE_URL naming another database than
 * DATABASE_URL): creates the audit table if it is missing, as `ownerUrl`, and leaves the
 * writer role exactly INSERT on it and EXECUTE on its read function. Idempotent; `npm run migration:run` calls it.
 */
export async function prepareAuditStore(ownerUrl: string, writerRole: string): Promise<void> {
  const client = new Client({ connectionString: ownerUrl, application_name: 'conversation-read-api-migrations' });
  await client.connect();
  try {
    await inTransaction(client, async () => {
      await ensureAuditSchema(client);
      await ensureAuditReadPath(client);
      const { rows } = await client.query<{ me: string }>('SELECT current_user AS me');
      if (rows[0].me !== writerRole) {
        const role = `"${writerRole.replace(/"/g, '""')}"`;
        await client.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
        await client.query(`REVOKE ALL ON TABLE audit_events FROM ${role}`);
        await client.query(`GRANT INSERT ON TABLE audit_events TO ${role}`);
        await client.query(`REVOKE ALL ON TABLE audit_event_resources FROM ${role}`);
        await client.query(`GRANT EXECUTE ON FUNCTION ${AUDIT_READ_FUNCTION} TO ${role}`);
      }
    });
  } finally {
    await client.end();
  }
}
