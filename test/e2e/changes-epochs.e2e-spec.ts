import { join } from 'node:path';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { feedBinding } from '../../src/changes/changes.service';
import { CAPTURE_TRIGGERS } from '../../src/changes/capture-sql';
import { CursorCodec } from '../../src/common/cursors/cursor-codec';
import { DatabaseUrls } from '../../src/config/database-urls';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { migrate } from '../../src/database/migrate';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { FeedReader, idsOf } from '../support/feed';
import { createTenant, Tenant } from '../support/tenant';
import { createTestApp, ownerDataSource, TEST_CURSOR_SECRET } from '../support/test-app';

/**
 * The feed across a restore: a company's data and change log copied, as a logical dump and a
 * restore with triggers disabled (pg_restore --disable-triggers) would, into a fresh cluster
 * whose transaction counter is far below the ids in the clients' cursors. Positions carry the
 * epoch (the server's life), so an old cursor still sees every new change and the restored
 * entries, above the new counter, are served instead of stalling the feed.
 */
describe('the change feed across a restore into another cluster', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let tenant: Tenant;
  let restored: EmbeddedDatabase;
  let restoredApp: NestExpressApplication;
  let restoredDb: DataSource;

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    tenant = await createTenant(db, request(app.getHttpServer()), [...CHANGE_SCOPES]);
    restored = await startEmbeddedPostgres(join(process.env.TEST_ROOT!, `restored-${process.pid}`), { database: 'restored' });
    await migrate(new DatabaseUrls(restored.apiUrl, restored.ownerUrl, restored.apiUrl));
  }, 180_000);

  afterAll(async () => {
    await restoredApp?.close();
    await restoredDb?.destroy();
    await restored?.stop();
    await app?.close();
    await db?.destroy();
  });

  it('serves the restored entries, and an old cursor sees every change made after the restore', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await tenant.people.recording('meeting', { owner: tenant.seller }));
    const before = new FeedReader(() => request(app.getHttpServer()), tenant.token, 'types=meeting');
    await before.poll();
    expect(idsOf(before.seen)).toEqual(expect.arrayContaining(made.map((m) => m.publicId)));
    // A cursor of the first design ([xid, seq], before epochs): the same position, read as epoch 1.
    const [first] = await db.query(`SELECT xid::text AS xid, seq::text AS seq FROM change_log WHERE company_id = $1 AND object_id = $2`, [
      tenant.company.id,
      made[0].publicId,
    ]);
    const legacy = new CursorCodec(TEST_CURSOR_SECRET).seal(feedBinding(tenant.company.id, ['meeting']), [first.xid, first.seq]);
    const [{ xid: highest }] = await db.query(`SELECT max(xid)::text AS xid FROM change_log WHERE company_id = $1`, [tenant.company.id]);

    await copyCompany(tenant.company.id, restored);
    restoredApp = await createTestApp({ urls: { api: restored.apiUrl, owner: restored.ownerUrl } });
    restoredDb = await new DataSource(
      dataSourceOptions(restored.ownerUrl, { poolSize: 2, applicationName: 'tests-restored' }),
    ).initialize();
    const http = () => request(restoredApp.getHttpServer());

    // Nothing new yet: the old cursor answers an empty page at once, it does not wait on the restored entries.
    const follower = new FeedReader(http, tenant.token, 'types=meeting');
    follower.cursor = before.cursor;
    expect(await follower.poll()).toEqual([]);
    // A full read from the beginning is served all of it (the restored entries lie above the new counter).
    const fresh = new FeedReader(http, tenant.token, 'types=meeting');
    await fresh.poll();
    expect(idsOf(fresh.seen)).toEqual(expect.arrayContaining(made.map((m) => m.publicId)));

    // Writes after the restore: their transaction ids are below the cursor's, their epoch is later.
    const after = [];
    const people = new RecordingsFactory(restoredDb, tenant.company.id);
    for (let i = 0; i < 2; i++) after.push(await people.recording('meeting', { owner: tenant.seller }));
    await restoredDb.query(`UPDATE recordings SET title = 'depois da restauração' WHERE id = $1`, [made[1].id]);
    const [{ xid: newest, epoch }] = await restoredDb.query(
      `SELECT max(xid)::text AS xid, max(epoch) AS epoch FROM change_log WHERE company_id = $1 AND object_id = ANY ($2)`,
      [tenant.company.id, after.map((m) => m.publicId)],
    );
    expect(BigInt(newest)).toBeLessThan(BigInt(highest)); // the counter went back: a raw xid cursor would skip these
    const [{ restoredEpoch }] = await db.query(`SELECT max(epoch) AS "restoredEpoch" FROM change_log WHERE company_id = $1`, [
      tenant.company.id,
    ]);
    expect(epoch).toBeGreaterThan(restoredEpoch); // a new life: after every epoch the restored log knew
    const seen = await follower.poll();
    expect(idsOf(seen).sort()).toEqual([...after.map((m) => m.publicId), made[1].publicId].sort());
    // And the cursor of the first design resumes too.
    const old = new FeedReader(http, tenant.token, 'types=meeting');
    old.cursor = legacy;
    await old.poll();
    expect(idsOf(old.seen)).toEqual(expect.arrayContaining([made[1].publicId, made[2].publicId, ...after.map((m) => m.publicId)]));
  }, 180_000);
});

const CHANGE_SCOPES = ['meetings.read', 'calls.read'] as const;

/**
 * A dump of one company restored into `target`: every row of its tenant tables, the companies
 * row, the feed's epochs and horizon marks, inserted with the triggers disabled (as
 * pg_restore --disable-triggers loads data), then the identity sequences moved past the ids.
 */
async function copyCompany(companyId: string, target: EmbeddedDatabase): Promise<void> {
  const source = new Client({ connectionString: process.env.TEST_MIGRATION_DATABASE_URL });
  const sink = new Client({ connectionString: Object.assign(new URL(target.superUrl), { pathname: '/restored' }).toString() });
  await Promise.all([source.connect(), sink.connect()]);
  try {
    const { rows: tables } = await sink.query<{ name: string; tenant: boolean }>(
      `SELECT c.relname AS name, EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'company_id') AS tenant
       FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
         AND c.relname NOT IN ('schema_migrations') AND c.relname NOT LIKE 'audit%' AND c.relname NOT LIKE 'webhook%'`,
    );
    await source.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await sink.query('BEGIN');
    // The dump's own rows replace what the migration recorded (pg_dump includes the unlogged life
    // marker's row too: its start time is the old server's, so it names no life here).
    await sink.query('DELETE FROM change_epochs');
    await sink.query('DELETE FROM change_epoch_life');
    for (const { name, tenant } of tables) {
      const filter = name === 'companies' ? 'WHERE id = $1' : tenant ? 'WHERE company_id = $1' : '';
      const { rows } = await source.query(`SELECT coalesce(json_agg(t), '[]') AS rows FROM ${name} t ${filter}`, filter ? [companyId] : []);
      await sink.query(`ALTER TABLE ${name} DISABLE TRIGGER ALL`);
      await sink.query(`INSERT INTO ${name} OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_recordset(NULL::${name}, $1::json)`, [
        JSON.stringify(rows[0].rows),
      ]);
      await sink.query(`ALTER TABLE ${name} ENABLE TRIGGER ALL`);
    }
    // ENABLE TRIGGER ALL enables them for origin writers only (as after pg_restore --disable-triggers): fire ALWAYS again.
    for (const t of CAPTURE_TRIGGERS) await sink.query(`ALTER TABLE ${t.table} ENABLE ALWAYS TRIGGER ${t.name}`);
    const { rows: identities } = await sink.query<{ table: string; column: string }>(
      `SELECT table_name AS table, column_name AS column FROM information_schema.columns
       WHERE table_schema = 'public' AND is_identity = 'YES'`,
    );
    for (const { table, column } of identities)
      await sink.query(
        `SELECT setval(pg_get_serial_sequence('${table}', '${column}'), greatest((SELECT max(${column}) FROM ${table}), 1))`,
      );
    await sink.query('COMMIT');
    await source.query('COMMIT');
  } finally {
    await Promise.all([source.end(), sink.end()]);
  }
}
