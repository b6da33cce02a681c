import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ClsService } from 'nestjs-cls';
import { mintId } from '../../src/common/ids/public-id';
import { Company } from '../../src/companies/company.entity';
import { readRolePosture } from '../../src/database/database-role-check';
import { TenantTransaction } from '../../src/database/tenant-transaction';
import { CREDENTIAL_TABLES } from '../../src/database/schema-privileges';
import { ConversationsFactory } from '../../src/seeding/conversations.factory';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { createClient } from '../support/credentials';
import { createCompany } from '../support/factories';
import { PipelineProbeModule } from '../support/pipeline-probe.module';
import { apiDataSource, createTestApp, ownerDataSource } from '../support/test-app';

describe('tenant isolation in the database', () => {
  let owner: DataSource;
  let api: DataSource;
  let app: NestExpressApplication;
  let a: Company;
  let b: Company;

  beforeAll(async () => {
    [owner, api, app] = await Promise.all([ownerDataSource(), apiDataSource(), createTestApp({ extra: [PipelineProbeModule] })]);
    [a, b] = await Promise.all([createCompany(owner), createCompany(owner)]);
  });
  afterAll(async () => {
    await Promise.all([owner.destroy(), api.destroy(), app.close()]);
  });

  it('connects the API as a role that is not superuser, has no BYPASSRLS and owns no tenant table', async () => {
    expect(await readRolePosture(api)).toMatchObject({ superuser: false, bypassRls: false, ownsTenantTables: false, excess: [] });
  });

  it('forces row-level security on every table that has it enabled, and enables it on every table with a company', async () => {
    const tables: { relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }[] = await owner.query(`
      SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
        AND (c.relname = 'companies' OR EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'company_id'))`);
    expect(tables.length).toBeGreaterThan(0);
    for (const t of tables) expect(t).toMatchObject({ relrowsecurity: true, relforcerowsecurity: true });
  });

  it('returns none of company B rows to an unfiltered query inside company A tenant transaction', async () => {
    const tenant = app.get(TenantTransaction);
    const rows: { public_id: string }[] = await app
      .get(ClsService)
      .run(() => tenant.run(a.id, (sql) => sql.query<{ public_id: string }>('SELECT public_id FROM companies', [])));
    expect(rows.map((r) => r.public_id)).toEqual([a.publicId]);
  });

  it('refuses to start, in every environment, when its role can bypass row-level security', async () => {
    const asOwner = { DATABASE_URL: process.env.TEST_MIGRATION_DATABASE_URL };
    for (const NODE_ENV of ['production', 'development']) {
      await expect(createTestApp({ env: { ...asOwner, NODE_ENV } })).rejects.toThrow(
        /CAN BYPASS ROW-LEVEL SECURITY.*owns the tenant tables.*Refusing to start/,
      );
    }
  });

  describe('the API role holds nothing it does not need', () => {
    const su = () =>
      new DataSource({
        type: 'postgres',
        url: process.env.TEST_SUPER_DATABASE_URL!.replace(/\/postgres$/, `/${new URL(process.env.TEST_DATABASE_URL!).pathname.slice(1)}`),
      });
    const apiRole = () => `"${decodeURIComponent(new URL(process.env.TEST_DATABASE_URL!).username)}"`;

    it.each([
      [
        'TEMPORARY on the database',
        (db: string) => `GRANT TEMPORARY ON DATABASE "${db}" TO ${apiRole()}`,
        (db: string) => `REVOKE TEMPORARY ON DATABASE "${db}" FROM ${apiRole()}`,
      ],
      ['UPDATE on recordings', () => `GRANT UPDATE ON recordings TO ${apiRole()}`, () => `REVOKE UPDATE ON recordings FROM ${apiRole()}`],
      [
        'SELECT on audit_events',
        () => `GRANT SELECT ON audit_events TO ${apiRole()}`,
        () => `REVOKE SELECT ON audit_events FROM ${apiRole()}`,
      ],
      [
        'SELECT on api_clients',
        () => `GRANT SELECT ON api_clients TO ${apiRole()}`,
        () => `REVOKE SELECT ON api_clients FROM ${apiRole()}`,
      ],
      [
        'CREATE on schema public',
        () => `GRANT CREATE ON SCHEMA public TO ${apiRole()}`,
        () => `REVOKE CREATE ON SCHEMA public FROM ${apiRole()}`,
      ],
    ])('refuses to start when it also holds %s, naming it', async (what, grant, revoke) => {
      const admin = await su().initialize();
      const database = new URL(process.env.TEST_DATABASE_URL!).pathname.slice(1);
      try {
        await admin.query(grant(database));
        await expect(createTestApp()).rejects.toThrow(new RegExp(`HOLDS MORE THAN THE API NEEDS: .*${what}.*Refusing to start`));
      } finally {
        await admin.query(revoke(database));
        await admin.destroy();
      }
      await (await createTestApp()).close(); // and starts again once revoked
    });

    it('has no TEMPORARY privilege, and the definer functions search pg_temp last, so a temporary table cannot shadow theirs', async () => {
      expect((await api.query(`SELECT has_database_privilege(current_user, current_database(), 'TEMPORARY') AS t`))[0].t).toBe(false);
      const config: Array<{ name: string; search_path: string }> = await owner.query(
        `SELECT proname AS name, (SELECT c FROM unnest(proconfig) c WHERE c LIKE 'search_path=%') AS search_path
         FROM pg_proc WHERE prosecdef AND pronamespace = 'public'::regnamespace ORDER BY 1`,
      );
      expect(config.map((c) => c.name)).toEqual([
        'app_audit_events',
        'app_audit_index_resources',
        'app_client_credentials',
        'app_client_state',
        'app_client_token_secrets',
        'app_compact_changes',
        'app_company_clients',
        'app_mark_change_horizon',
        'app_record_change_epoch',
        'app_rotate_webhook_secret',
      ]);
      for (const c of config)
        expect({ name: c.name, search_path: c.search_path }).toEqual({
          name: c.name,
          search_path: 'search_path=pg_catalog, public, pg_temp',
        });
      // Even a role given TEMP back cannot shadow the clients table the lookup reads.
      const admin = await su().initialize();
      const database = new URL(process.env.TEST_DATABASE_URL!).pathname.slice(1);
      const client = await createClient(owner, a);
      await admin.query(`GRANT TEMPORARY ON DATABASE "${database}" TO ${apiRole()}`);
      const runner = api.createQueryRunner();
      try {
        await runner.query(`CREATE TEMP TABLE api_clients (public_id text, status text)`);
        await runner.query(`INSERT INTO pg_temp.api_clients VALUES ($1, 'forged')`, [client.clientId]);
        const [state] = await runner.query(`SELECT status FROM app_client_state($1)`, [client.clientId]);
        expect(state.status).toBe('active');
      } finally {
        await runner.query('DROP TABLE IF EXISTS pg_temp.api_clients');
        await runner.release();
        await admin.query(`REVOKE TEMPORARY ON DATABASE "${database}" FROM ${apiRole()}`);
        await admin.destroy();
      }
    });
  });

  it('shows a tenant only its own rows in every tenant table, through the API role', async () => {
    for (const company of [a, b]) {
      const f = new RecordingsFactory(owner, company.id);
      const user = await f.user();
      const team = await f.team();
      await f.membership(user, team, 'participant', true);
      const template = await f.template([{ text: 'Q', type: 'text' }]);
      await f.recording('meeting', {
        owner: user,
        template,
        transcript: 'enhanced',
        evaluation: 'completed',
        tags: [await f.tag()],
        competitors: [await f.competitor()],
        accounts: [await f.account()],
        enablement: { speakers: [user] },
        skillScores: [{ user, skill: await f.skill(), score: 1 }],
      });
      const conversations = new ConversationsFactory(owner, company.id);
      const account = await f.account();
      const thread = await conversations.thread(await conversations.mailbox(user), 2, new Date());
      await conversations.emailAccounts(thread.conversation, [account]);
      await conversations.chat({ seller: user, accounts: [account], messages: [{}] });
      // The company's webhook configuration, which the API role reads and writes under the same policies.
      const [endpoint] = await owner.query(
        `INSERT INTO webhook_endpoints (public_id, company_id, url, secret, position_epoch, position_xid)
         VALUES ($1, $2, 'https://example.com/hook', 'sealed', 1, '1') RETURNING id`,
        [mintId('webhookEndpoint'), company.id],
      );
      await owner.query(
        `INSERT INTO webhook_deliveries (endpoint_id, change_id, event_type, committed_at, payload, next_attempt_at)
         VALUES ($1, 'chg_x', 'meeting.created', now(), '{}', now())`,
        [endpoint.id],
      );
      await owner.query(
        `INSERT INTO idempotency_keys (company_id, client_id, key, operation, request_hash, answer) VALUES ($1, 'cli_x', 'k', 'op', 'h', 'a')`,
        [company.id],
      );
    }
    const tables: { name: string }[] = await owner.query(
      `SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
         AND EXISTS (SELECT 1 FROM pg_attribute x WHERE x.attrelid = c.oid AND x.attname = 'company_id') ORDER BY 1`,
    );
    const readable = tables.map((t) => t.name).filter((name) => !CREDENTIAL_TABLES.includes(name) && name !== 'audit_events');
    expect(readable).toEqual(
      expect.arrayContaining([
        'recordings',
        'transcripts',
        'users',
        'recording_answers',
        'email_messages',
        'email_participants',
        'chat_messages',
      ]),
    );
    const tenant = app.get(TenantTransaction);
    for (const table of readable) {
      const ownerView: { company_id: string }[] = await owner.query(
        `SELECT DISTINCT company_id FROM ${table} WHERE company_id IN ($1, $2)`,
        [a.id, b.id],
      );
      expect({ table, companies: ownerView.length }).toEqual({ table, companies: 2 });
      const seen: { company_id: string }[] = await app
        .get(ClsService)
        .run(() => tenant.run(a.id, (sql) => sql.query<{ company_id: string }>(`SELECT DISTINCT company_id FROM ${table}`, [])));
      expect({ table, seen: seen.map((r) => r.company_id) }).toEqual({ table, seen: [a.id] });
    }
    // Deliveries have no company of their own: the policy reaches them through their endpoint.
    const deliveries = `SELECT DISTINCT e.company_id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.company_id IN ($1, $2)`;
    expect((await owner.query(deliveries, [a.id, b.id])).length).toBe(2);
    const seenDeliveries: { n: number }[] = await app
      .get(ClsService)
      .run(() => tenant.run(a.id, (sql) => sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries`, [])));
    expect(seenDeliveries[0].n).toBe(1);
  });

  it('returns no rows at all to the API role outside a tenant transaction', async () => {
    expect(await api.query('SELECT * FROM companies')).toEqual([]);
  });

  it('keeps the tenant setting inside its transaction (a pooled connection does not carry it on)', async () => {
    const runner = api.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`BEGIN READ ONLY; SELECT set_config('app.company_id', '${a.id}', true)`);
      expect(await runner.query('SELECT count(*)::int AS n FROM companies')).toEqual([{ n: 1 }]);
      await runner.query('COMMIT');
      expect(await runner.query('SELECT count(*)::int AS n FROM companies')).toEqual([{ n: 0 }]);
    } finally {
      await runner.release();
    }
  });

  it('refuses writes by the API role', async () => {
    await expect(api.query(`UPDATE companies SET name = 'x' WHERE id = $1`, [b.id])).rejects.toThrow(/permission denied/);
    await expect(api.query(`INSERT INTO companies (public_id, name) VALUES ('cmp_x', 'x')`)).rejects.toThrow(/permission denied/);
  });

  it('lets the API role append to the audit trail and never read, change or delete it', async () => {
    await api.query(`INSERT INTO audit_events (occurred_at, request_id, method, status) VALUES (now(), 'req_isolation', 'GET', 200)`);
    await expect(api.query('SELECT * FROM audit_events')).rejects.toThrow(/permission denied/);
    await expect(api.query(`UPDATE audit_events SET status = 500`)).rejects.toThrow(/permission denied/);
    await expect(api.query(`DELETE FROM audit_events`)).rejects.toThrow(/permission denied/);
  });

  it('runs tenant work read-only', async () => {
    const tenant = app.get(TenantTransaction);
    await expect(app.get(ClsService).run(() => tenant.run(a.id, (sql) => sql.query('CREATE TEMP TABLE t (x int)', [])))).rejects.toThrow(
      /read-only transaction/,
    );
  });

  it('over HTTP: a request for company A sees only company A, for B only B', async () => {
    const http = request(app.getHttpServer());
    const [ra, rb] = await Promise.all([
      http.get('/v1/_probe/companies').set('x-test-company', a.id).expect(200),
      http.get('/v1/_probe/companies').set('x-test-company', b.id).expect(200),
    ]);
    expect(ra.body.data).toEqual([a.publicId]);
    expect(rb.body.data).toEqual([b.publicId]);
  });

  describe('credentials', () => {
    it('gives the API role no privilege at all on the credential tables', async () => {
      await expect(api.query('SELECT * FROM api_clients')).rejects.toThrow(/permission denied/);
      await expect(api.query('SELECT * FROM client_secrets')).rejects.toThrow(/permission denied/);
    });

    it('lets the API role write a webhook secret but read none, and read deliveries without their body', async () => {
      const can = async (table: string, column: string, privilege: string): Promise<boolean> =>
        (await api.query(`SELECT has_column_privilege(current_user, $1, $2, $3) AS p`, [table, column, privilege]))[0].p;
      for (const column of ['secret', 'previous_secret']) {
        expect({ column, select: await can('webhook_endpoints', column, 'SELECT') }).toEqual({ column, select: false });
      }
      expect(await can('webhook_endpoints', 'secret', 'INSERT')).toBe(true);
      expect(await can('webhook_endpoints', 'url', 'SELECT')).toBe(true);
      expect(await can('webhook_deliveries', 'payload', 'SELECT')).toBe(false);
      expect(await can('webhook_deliveries', 'payload', 'UPDATE')).toBe(false);
      expect(await can('webhook_deliveries', 'status', 'SELECT')).toBe(true);
      await expect(api.query('SELECT secret FROM webhook_endpoints')).rejects.toThrow(/permission denied/);
      await expect(api.query('SELECT payload FROM webhook_deliveries')).rejects.toThrow(/permission denied/);
      await expect(api.query('DELETE FROM webhook_deliveries')).rejects.toThrow(/permission denied/);
    });

    it('lets the API role rotate only its own company’s webhook secret, through the definer function', async () => {
      const made = async (company: Company) =>
        (
          await owner.query(
            `INSERT INTO webhook_endpoints (public_id, company_id, url, secret, position_epoch, position_xid)
             VALUES ($1, $2, 'https://example.com/hook', 'sealed-old', 1, '1') RETURNING id::text AS id`,
            [mintId('webhookEndpoint'), company.id],
          )
        )[0].id as string;
      const [mine, theirs] = [await made(a), await made(b)];
      const rotate = (id: string) =>
        app
          .get(ClsService)
          .run(() =>
            app
              .get(TenantTransaction)
              .runWritable(
                a.id,
                async (sql) => (await sql.query('SELECT app_rotate_webhook_secret($1, $2, 60) AS until', [id, 'sealed-new'])).rows[0].until,
              ),
          );
      expect(await rotate(mine)).not.toBeNull();
      expect(await rotate(mine)).toBeNull(); // a previous secret signs: refused in the same statement
      expect(await rotate(theirs)).toBeNull();
      const rows: Array<{ id: string; secret: string; previous_secret: string | null }> = await owner.query(
        'SELECT id::text AS id, secret, previous_secret FROM webhook_endpoints WHERE id = ANY ($1::bigint[]) ORDER BY id',
        [[mine, theirs]],
      );
      expect(rows).toEqual([
        { id: mine, secret: 'sealed-new', previous_secret: 'sealed-old' },
        { id: theirs, secret: 'sealed-old', previous_secret: null },
      ]);
      await owner.query('DELETE FROM webhook_endpoints WHERE id = ANY ($1::bigint[])', [[mine, theirs]]);
    });

    it('lets the API role look up exactly one client by id, and nothing by anything else', async () => {
      const client = await createClient(owner, a);
      const [state] = await api.query('SELECT * FROM app_client_state($1)', [client.clientId]);
      expect(state).toMatchObject({ company_id: a.id, company_public_id: a.publicId, status: 'active', credential_version: 1 });
      expect(state).not.toHaveProperty('secret_hashes');
      const [credentials] = await api.query('SELECT * FROM app_client_credentials($1)', [client.clientId]);
      expect(credentials.secret_hashes).toHaveLength(1);
      for (const probe of ['%', '', "cli_' OR true --", 'cli_0000000000000000000000']) {
        expect(await api.query('SELECT * FROM app_client_state($1)', [probe])).toEqual([]);
      }
    });

    it('keeps EXECUTE on the credential lookups from PUBLIC', async () => {
      const rows: Array<{ proname: string; acl: string }> = await owner.query(
        `SELECT proname, proacl::text AS acl FROM pg_proc WHERE proname IN ('app_client_state', 'app_client_credentials')`,
      );
      expect(rows).toHaveLength(2);
      // A PUBLIC grant shows as "=X/owner" in the ACL.
      for (const row of rows) expect(row.acl).not.toMatch(/[{,]=X/);
    });
  });
});
