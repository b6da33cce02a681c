import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AUDIT_READ_SQL, CLIENT_NAMES_SQL } from '../../src/audit/audit-read-sql';
import { ROTATE_SECRET_SQL } from '../../src/database/webhook-secrets-sql';
import { TOKEN_SECRETS_SQL } from '../../src/auth/token-secrets-sql';
import { CAPTURE_FUNCTIONS, CAPTURE_TRIGGERS, functionBody, functionName } from '../../src/changes/capture-sql';
import { DatabaseUrls } from '../../src/config/database-urls';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { migrate } from '../../src/database/migrate';
import { MIGRATIONS } from '../../src/database/migrations';
import { migrateAndGrant, roleOf } from '../../src/database/schema-privileges';
import { ConversationsFactory } from '../../src/seeding/conversations.factory';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { assertTestDatabase, createTestApp } from '../support/test-app';

/**
 * Migrations are history: a database upgraded one release at a time, with data in it, must end
 * with exactly the schema of a fresh one, and that schema must run today's capture
 * (src/changes/capture-sql.ts), not some older text a migration left behind.
 */

const withDatabase = (url: string, database: string) => Object.assign(new URL(url), { pathname: `/${database}` }).toString();

/** Everything a migration can leave in the public schema, as comparable text. */
async function fingerprint(db: DataSource): Promise<Record<string, string[]>> {
  const rows = async (sql: string) => ((await db.query(sql)) as Array<{ x: string }>).map((r) => r.x);
  return {
    columns: await rows(`SELECT format('%s.%s %s %s %s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
        CASE WHEN a.attnotnull THEN 'not null' ELSE 'null' END, coalesce(pg_get_expr(d.adbin, d.adrelid), '')) AS x
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'c', 'v') ORDER BY 1`),
    constraints: await rows(`SELECT format('%s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) AS x
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1`),
    indexes: await rows(`SELECT indexdef AS x FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`),
    functions: await rows(`SELECT format('%s(%s) %s %s %s %s %s', p.proname, pg_get_function_identity_arguments(p.oid), p.provolatile,
        p.prosecdef, p.proconfig, p.proacl, md5(p.prosrc)) AS x
      FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1`),
    triggers: await rows(`SELECT format('%s %s', pg_get_triggerdef(t.oid), t.tgenabled) AS x
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal ORDER BY 1`),
    policies: await rows(`SELECT format('%s %s %s %s %s %s', tablename, policyname, permissive, roles, qual, with_check) AS x
      FROM pg_policies WHERE schemaname = 'public' ORDER BY 1`),
    tables: await rows(`SELECT format('%s %s %s %s %s', relname, relkind, relrowsecurity, relforcerowsecurity, relacl) AS x
      FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p', 'S', 'v') ORDER BY 1`),
    migrations: await rows(`SELECT name AS x FROM schema_migrations ORDER BY id`),
  };
}

describe('migrations', () => {
  const owner = assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL);
  const api = assertTestDatabase(process.env.TEST_DATABASE_URL);
  const suffix = `${process.pid}`;
  const [fresh, stepped] = [`migrations_fresh_${suffix}`, `migrations_stepped_${suffix}`];
  let su: Client;

  beforeAll(async () => {
    su = new Client({ connectionString: withDatabase(process.env.TEST_SUPER_DATABASE_URL!, new URL(api).pathname.slice(1)) });
    await su.connect();
    const ownerRole = decodeURIComponent(new URL(owner).username);
    for (const name of [fresh, stepped]) await su.query(`CREATE DATABASE ${name} OWNER "${ownerRole}"`);
    await migrate(new DatabaseUrls(withDatabase(api, fresh), withDatabase(owner, fresh), withDatabase(api, fresh)));
  });

  afterAll(async () => {
    for (const name of [fresh, stepped]) await su.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await su.end();
  });

  const open = (database: string, migrations = MIGRATIONS) =>
    new DataSource({
      ...dataSourceOptions(withDatabase(owner, database), { poolSize: 1, applicationName: 'tests-migrations' }),
      migrations,
    }).initialize();

  it('upgrades a database one migration at a time, with data written between, to exactly the schema of a fresh one', async () => {
    for (let applied = 1; applied <= MIGRATIONS.length; applied++) {
      // Each step a release of its own, on its own connection; the grants (today's code, not a
      // migration) are recomputed from the schema at the end, as every migration:run does.
      const db = await open(stepped, MIGRATIONS.slice(0, applied));
      try {
        if (applied < MIGRATIONS.length) await db.runMigrations({ transaction: 'each' });
        else await migrateAndGrant(db, roleOf(withDatabase(api, stepped)));
        // Data from the moment meetings and conversations exist, so every later backfill has rows to work on.
        if (MIGRATIONS[applied - 1].name === 'Conversations1764100000000') await writeData(db);
      } finally {
        await db.destroy();
      }
    }
    const [a, b] = [await open(fresh), await open(stepped)];
    try {
      const [left, right] = [await fingerprint(a), await fingerprint(b)];
      for (const part of Object.keys(left)) expect([part, right[part]]).toEqual([part, left[part]]);
      expect(left.triggers.length).toBeGreaterThan(80);
      expect(left.functions.length).toBeGreaterThan(40);
      // The backfills ran on the stepped database's rows: every object there has its created entry and its key.
      const [{ objects, entries }] = await b.query(`SELECT
          (SELECT count(*) FROM recordings) + (SELECT count(*) FROM chat_conversations) + (SELECT count(*) FROM chat_messages) AS objects,
          (SELECT count(*) FROM change_log WHERE action = 'created' AND object_key > 0) AS entries`);
      expect(Number(objects)).toBeGreaterThan(0);
      expect(entries).toBe(objects);
    } finally {
      await Promise.all([a.destroy(), b.destroy()]);
    }
  });

  it('holds today’s audit read path (src/audit/audit-read-sql.ts), token secrets (src/auth/token-secrets-sql.ts) and webhook secret rotation (src/database/webhook-secrets-sql.ts): running their statements on a fresh database changes nothing', async () => {
    const db = await open(fresh);
    try {
      const before = await fingerprint(db);
      const runner = db.createQueryRunner();
      await runner.startTransaction();
      try {
        for (const sql of [...AUDIT_READ_SQL, ...CLIENT_NAMES_SQL, ...TOKEN_SECRETS_SQL, ...ROTATE_SECRET_SQL]) await runner.query(sql);
        const after = await fingerprint(runner.manager as unknown as DataSource);
        expect(after).toEqual(before);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    } finally {
      await db.destroy();
    }
  });

  it('runs today’s capture: every function and trigger of src/changes/capture-sql.ts, word for word', async () => {
    const db = await open(fresh);
    try {
      const functions: Array<{ name: string; body: string }> = await db.query(
        `SELECT proname AS name, prosrc AS body FROM pg_proc WHERE pronamespace = 'public'::regnamespace AND proname = ANY ($1)`,
        [CAPTURE_FUNCTIONS.map(functionName)],
      );
      expect(functions.length).toBe(CAPTURE_FUNCTIONS.length);
      for (const sql of CAPTURE_FUNCTIONS) {
        const name = functionName(sql);
        expect([name, functions.find((f) => f.name === name)?.body]).toEqual([name, functionBody(sql)]);
      }
      const triggers: Array<{ name: string; definition: string; enabled: string }> = await db.query(
        `SELECT t.tgname AS name, pg_get_triggerdef(t.oid) AS definition, t.tgenabled AS enabled FROM pg_trigger t
         WHERE NOT t.tgisinternal AND t.tgname = ANY ($1)`,
        [CAPTURE_TRIGGERS.map((t) => t.name)],
      );
      expect(triggers.length).toBe(CAPTURE_TRIGGERS.length);
      for (const t of CAPTURE_TRIGGERS) {
        const expected = t.sql.replace('CREATE OR REPLACE TRIGGER', 'CREATE TRIGGER').replace(` ON ${t.table} `, ` ON public.${t.table} `);
        expect([t.name, triggers.find((r) => r.name === t.name)]).toEqual([t.name, { name: t.name, definition: expected, enabled: 'A' }]);
      }
      // And nothing else fires on the captured tables but what capture-sql.ts and the activity recounts define.
      const others: Array<{ name: string }> = await db.query(
        `SELECT t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         WHERE NOT t.tgisinternal AND c.relname = ANY ($1) AND NOT t.tgname = ANY ($2) ORDER BY 1`,
        [[...new Set(CAPTURE_TRIGGERS.map((t) => t.table))], CAPTURE_TRIGGERS.map((t) => t.name)],
      );
      expect(others.map((o) => o.name)).toEqual(expect.arrayContaining([]));
      for (const { name } of others) expect(name).toMatch(/arrived|audience/);
    } finally {
      await db.destroy();
    }
  });

  it('keeps the API from starting while a capture trigger does not fire for every writer, naming it', async () => {
    const db = await open(fresh);
    const urls = { api: withDatabase(api, fresh), owner: withDatabase(owner, fresh) };
    try {
      // What ENABLE TRIGGER ALL after a data-only restore with --disable-triggers leaves.
      await db.query('ALTER TABLE chat_messages ENABLE TRIGGER chat_messages_changes_update');
      await db.query('ALTER TABLE recordings DISABLE TRIGGER recordings_changes_delete');
      await expect(createTestApp({ urls })).rejects.toThrow(
        /CHANGE CAPTURE IS NOT ON FOR EVERY WRITER: recordings_changes_delete on recordings \(disabled\), chat_messages_changes_update on chat_messages \(not enabled ALWAYS\)\. Refusing to start/,
      );
      await db.query('ALTER TABLE chat_messages ENABLE ALWAYS TRIGGER chat_messages_changes_update');
      await db.query('ALTER TABLE recordings ENABLE ALWAYS TRIGGER recordings_changes_delete');
      await (await createTestApp({ urls })).close(); // and starts once capture is on again
    } finally {
      await db.destroy();
    }
  });
});

/** A company with a meeting, a call and a chat, written with the schema of the moment (before the change feed exists). */
async function writeData(db: DataSource): Promise<void> {
  const [company] = await db.query(
    `INSERT INTO companies (public_id, name) VALUES ('cmp_migrationsstepbystep00', 'Passo a Passo') RETURNING id::text AS id`,
  );
  const people = new RecordingsFactory(db, company.id);
  const seller = await people.user({ name: 'Caio', email: 'caio@passo.com.br' });
  await people.recording('meeting', { owner: seller, transcript: 'original' });
  await people.recording('call', { owner: seller });
  await new ConversationsFactory(db, company.id).chat({ seller, messages: [{ text: 'oi' }, { text: 'tudo bem?' }] });
}
