import { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AuditMaintenance } from '../../src/audit/audit-maintenance';
import { AuditReader } from '../../src/audit/audit-reader';
import { AUDIT_LIMITS } from '../../src/audit/audit-event';
import { AuditTrail } from '../../src/audit/audit-trail';
import { auditPartitions, ensureAuditPartitions, monthStart, partitionName } from '../../src/audit/audit-schema';
import { DatabaseUrls } from '../../src/config/database-urls';
import { Company } from '../../src/companies/company.entity';
import { RecordingsFactory, Ref } from '../../src/seeding/recordings.factory';
import { runCli } from '../support/cli';
import { createClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { createTestApp, eventually, ownerDataSource, sleep } from '../support/test-app';

const DAY = 86_400_000;

/**
 * The trail in a separate audit database of its own (as `migration:run` prepares one), so these
 * tests can lock it, fill it and drop its partitions without touching the shared trail.
 */
describe('audit trail: bounded rows, bounded queue, retention by partition', () => {
  const auditApi = () => process.env.TEST_AUDIT_DATABASE_URL!;
  const auditOwnerUrl = () => process.env.TEST_AUDIT_MIGRATION_DATABASE_URL!;
  let db: DataSource;
  let owner: Client;
  let company: Company;
  let meeting: Ref;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let token: string;
  const get = (url: string) => http.get(url).set('Authorization', `Bearer ${token}`);
  const rowOf = async (requestId: string) =>
    (await owner.query('SELECT query, path_params, truncated FROM audit_events WHERE request_id = $1', [requestId])).rows[0];

  beforeAll(async () => {
    db = await ownerDataSource();
    company = await createCompany(db);
    const people = new RecordingsFactory(db, company.id);
    meeting = await people.recording('meeting', { owner: await people.user() });
    owner = new Client({ connectionString: auditOwnerUrl() });
    await owner.connect();
    app = await createTestApp({ env: { AUDIT_DATABASE_URL: auditApi(), AUDIT_QUEUE_LIMIT: '8', AUDIT_TIMEOUT_MS: '1500' } });
    http = request(app.getHttpServer());
    token = await tokenFor(http, await createClient(db, company));
  });
  afterAll(async () => {
    await owner.end();
    await app.close();
    await db.destroy();
  });

  describe('what a row stores', () => {
    it('cuts a 15 KB query of an unauthenticated request to the documented bounds, marked truncated', async () => {
      const query = Array.from({ length: 60 }, (_, i) => `p${i}=${'x'.repeat(250)}`).join('&');
      const res = await http.get(`/v1/meetings?${query}`).expect(401);
      await sleep(200); // refusals are recorded on a best-effort basis, after the answer
      const row = await rowOf(res.headers['x-request-id']);
      expect(row.truncated).toBe(true);
      expect(JSON.stringify(row.query).length).toBeLessThanOrEqual(AUDIT_LIMITS.queryJson);
      expect(Object.keys(row.query).length).toBeLessThanOrEqual(AUDIT_LIMITS.names);
      expect(Object.values<string>(row.query).every((v) => v.length <= AUDIT_LIMITS.value + 1)).toBe(true);
    });

    it('keeps a query name such as __proto__ as a name, and marks nothing truncated that was not', async () => {
      const res = await get('/v1/meetings?__proto__=x&constructor=y');
      expect(res.status).toBe(400);
      await sleep(200);
      const row = await rowOf(res.headers['x-request-id']);
      expect(Object.entries(row.query)).toEqual([
        ['__proto__', 'x'],
        ['constructor', 'y'],
      ]);
      expect(row.truncated).toBe(false);
    });

    it('cuts a long path parameter and says so', async () => {
      const res = await get(`/v1/meetings/${'m'.repeat(600)}`).expect(404);
      await sleep(200);
      const row = await rowOf(res.headers['x-request-id']);
      expect(row.path_params.meeting_id.length).toBeLessThanOrEqual(AUDIT_LIMITS.value + 1);
      expect(row.truncated).toBe(true);
    });
  });

  it('bounds the rows waiting to be written: with the store stuck, reads past AUDIT_QUEUE_LIMIT answer 503 at once', async () => {
    const locker = new Client({ connectionString: auditOwnerUrl() });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE audit_events IN ACCESS EXCLUSIVE MODE');
      const trail = app.get(AuditTrail);
      let deepest = 0;
      const watch = setInterval(() => (deepest = Math.max(deepest, (trail as unknown as { pending: unknown[] }).pending.length)), 2);
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 40 }, async () => {
          const res = await get(`/v1/meetings/${meeting.publicId}`);
          return { status: res.status, code: res.body.error?.code, ms: Date.now() - started };
        }),
      );
      clearInterval(watch);
      expect(answers.every((a) => a.status === 503 && a.code === 'AUDIT_UNAVAILABLE')).toBe(true);
      expect(deepest).toBeLessThanOrEqual(8); // never more than the limit waits
      expect(answers.filter((a) => a.ms < 1000).length).toBeGreaterThan(10); // refused at once, not after the timeout
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    // The store free again, the rows that waited are written (on a busy machine, after this
    // line): once the queue drained, reads are served again.
    const trail = app.get(AuditTrail) as unknown as { pending: unknown[] };
    await eventually(async () => trail.pending.length === 0, 30_000);
    await get(`/v1/meetings/${meeting.publicId}`).expect(200);
  });

  describe('retention', () => {
    const now = new Date();
    const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY);
    const insert = (occurredAt: Date, requestId: string) =>
      owner.query(`INSERT INTO audit_events (occurred_at, request_id, company, method, status) VALUES ($1, $2, $3, 'GET', 200)`, [
        occurredAt,
        requestId,
        company.publicId,
      ]);

    beforeAll(async () => {
      await ensureAuditPartitions(owner, at(800), now);
      await insert(at(790), 'req_old_790');
      await insert(at(400), 'req_old_400');
      await insert(at(364), 'req_inside_364');
      await insert(at(30), 'req_recent_30');
    });

    it('exports a window as NDJSON, oldest first, streamed in batches (audit:export)', async () => {
      const reader = new AuditReader(new DatabaseUrls(auditApi(), auditOwnerUrl(), auditApi(), auditOwnerUrl()));
      const lines: string[] = [];
      const progress: number[] = [];
      const written = await reader.export(
        { from: at(800).toISOString(), to: at(1).toISOString(), company: company.publicId },
        async (records) => void lines.push(...records.map((r) => JSON.stringify(r))),
        (done) => progress.push(done),
      );
      expect(written).toBe(4);
      expect(lines.map((l) => JSON.parse(l).request_id)).toEqual(['req_old_790', 'req_old_400', 'req_inside_364', 'req_recent_30']);
      expect(JSON.parse(lines[0]).occurred_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(progress.at(-1)).toBe(4);
    });

    it('audit:export as a command writes one JSON event per line on stdout, nothing else', async () => {
      const out = await cli(['audit:export', '--from', at(800).toISOString(), '--to', at(1).toISOString(), '--company', company.publicId]);
      const events = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(events.map((e) => e.request_id)).toEqual(['req_old_790', 'req_old_400', 'req_inside_364', 'req_recent_30']);
    }, 60_000);

    it('audit:prune drops whole partitions older than the retention, never a row inside it, while reads stay fail-closed', async () => {
      const before = await auditPartitions(owner);
      // Reads go on throughout: each answer is either a 200 whose row is committed, or a 503.
      let reading = true;
      const answers: Array<{ status: number; requestId: string }> = [];
      const reader = (async () => {
        while (reading) {
          const res = await get(`/v1/meetings/${meeting.publicId}`);
          answers.push({ status: res.status, requestId: res.headers['x-request-id'] });
        }
      })();
      const { dropped, created } = await new AuditMaintenance(
        new DatabaseUrls(auditApi(), auditOwnerUrl(), auditApi(), auditOwnerUrl()),
      ).prune(365, now);
      await ensureAuditPartitions(owner, now, new Date(now.getTime() + 60 * DAY)); // and a new month created under load
      reading = false;
      await reader;

      const cutoff = at(365);
      expect(dropped.length).toBeGreaterThan(0);
      for (const p of before) expect([p.name, dropped.includes(p.name)]).toEqual([p.name, p.to <= cutoff]);
      expect(created).toEqual([]); // the months ahead already existed
      const kept = (
        await owner.query(
          `SELECT request_id FROM audit_events WHERE request_id IN ('req_old_790', 'req_old_400', 'req_inside_364', 'req_recent_30') ORDER BY occurred_at`,
        )
      ).rows.map((r) => r.request_id);
      expect(kept).toEqual(['req_inside_364', 'req_recent_30']);
      expect(partitionName(monthStart(at(364)))).toBe((await auditPartitions(owner))[0].name);

      expect(answers.length).toBeGreaterThan(0);
      for (const a of answers) {
        expect([200, 503]).toContain(a.status);
        if (a.status === 200)
          expect((await owner.query('SELECT 1 FROM audit_events WHERE request_id = $1', [a.requestId])).rowCount).toBe(1);
      }
    }, 60_000);

    it('audit:prune finishes what an interrupted run left: a month created but never attached, a month detached but never dropped', async () => {
      const maintenance = new AuditMaintenance(new DatabaseUrls(auditApi(), auditOwnerUrl(), auditApi(), auditOwnerUrl()));
      // As if the job had died between DETACH and DROP: an old month, detached, still there.
      const old = monthStart(at(500));
      await ensureAuditPartitions(owner, old, now);
      await owner.query(`ALTER TABLE audit_events DETACH PARTITION ${partitionName(old)}`);

      const ahead = monthStart(now, 11);
      const name = partitionName(ahead);
      // As if ATTACH had failed: the month's table exists on its own, with its CHECK.
      await owner.query(`ALTER TABLE audit_events DETACH PARTITION ${name}`);
      await owner.query(`DROP TABLE ${name}`);
      await owner.query(`CREATE TABLE ${name} (LIKE audit_events INCLUDING DEFAULTS)`);
      await owner.query(
        `ALTER TABLE ${name} ADD CONSTRAINT ${name}_month CHECK (occurred_at >= '${ahead.toISOString()}' AND occurred_at < '${monthStart(ahead, 1).toISOString()}')`,
      );
      const before = (await auditPartitions(owner)).map((p) => p.name);
      const { created, dropped } = await maintenance.prune(365, now);
      expect({ attachedBefore: before.includes(name), created }).toEqual({ attachedBefore: false, created: [name] });
      expect(dropped).toContain(partitionName(old));
      expect((await auditPartitions(owner)).map((p) => p.name)).toContain(name);
      expect((await owner.query('SELECT to_regclass($1) AS t', [partitionName(old)])).rows[0].t).toBeNull();
      // And a second run finds nothing left to do.
      expect(await maintenance.prune(365, now)).toEqual({ created: [], dropped: [] });
    });
  });
});

/** The admin CLI as a process, with the separate audit database; its stdout. */
async function cli(args: string[]): Promise<string> {
  const res = await runCli(
    {
      AUDIT_DATABASE_URL: process.env.TEST_AUDIT_DATABASE_URL,
      AUDIT_MIGRATION_DATABASE_URL: process.env.TEST_AUDIT_MIGRATION_DATABASE_URL,
    },
    ...args,
  );
  if (res.code !== 0) throw new Error(`${res.stderr}${res.stdout}`);
  return res.stdout;
}
