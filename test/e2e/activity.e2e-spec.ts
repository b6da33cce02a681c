import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { loadConfig } from '../../src/config/app-config';
import {
  ACTIVITY_KINDS,
  ActivityKind,
  ActivityReport,
  ActivitySimulator,
  ActivitySummary,
  activityDataSource,
} from '../../src/seeding/activity-simulator';
import { DemoSeeder } from '../../src/seeding/demo-seeder';
import { tokenFor } from '../support/credentials';
import { derivedFieldDisagreements } from '../support/derived-fields';
import { traverse } from '../support/http';
import { assertTestDatabase, createTestApp, ownerDataSource } from '../support/test-app';

/**
 * `seed:activity`'s simulator, called directly on a freshly seeded demo company for six
 * seconds at 20 events a second: every kind of event is in the database, transactions really
 * overlapped and committed out of their start order, the failed captures left nothing, and
 * every derived field still tells the truth, in SQL and through the API.
 */
describe('the activity simulator on a demo company [waits]', () => {
  let owner: DataSource;
  let pool: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let company: Company;
  let token: string;
  let startedAt: Date;
  let summary: ActivitySummary;
  const reports: ActivityReport[] = [];
  const get = (url: string) => http.get(url).set('Authorization', `Bearer ${token}`);
  const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => owner.query(sql, [company.id, ...params]);
  /** Each record's transcript (status and variants) and evaluation (status), by public id. */
  const states = async () =>
    new Map(
      (
        await q<{ public_id: string; transcript: string; evaluation: string }>(
          `SELECT r.public_id, r.transcript_status || ' ' || coalesce((SELECT string_agg(t.variant, ',' ORDER BY t.variant) FROM transcripts t
             WHERE t.recording_id = r.id), '') AS transcript, coalesce(e.status, 'none') AS evaluation
           FROM recordings r LEFT JOIN recording_evaluations e ON e.recording_id = r.id WHERE r.company_id = $1`,
        )
      ).map((r) => [r.public_id, r]),
    );
  let before: Awaited<ReturnType<typeof states>>;
  const done = (kind: ActivityKind) => reports.filter((r) => r.kind === kind && r.outcome === 'committed');

  beforeAll(async () => {
    [owner, pool, app] = await Promise.all([
      ownerDataSource(),
      activityDataSource(assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL), 'activity-test'),
      createTestApp(),
    ]);
    http = request(app.getHttpServer());
    const demo = await DemoSeeder.over(owner, loadConfig({ NODE_ENV: 'test' })).seed();
    company = await owner.getRepository(Company).findOneByOrFail({ publicId: demo.company_id });
    token = await tokenFor(http, { clientId: demo.client_id, clientSecret: demo.client_secret, scopes: [] });
    before = await states();
    startedAt = new Date();
    summary = await new ActivitySimulator(pool).run(company, { minutes: 0.1, rate: 1200, seed: 1 }, { onEvent: (r) => reports.push(r) });
  }, 90_000);
  afterAll(() => Promise.all([owner.destroy(), pool.destroy(), app.close()]));

  it('ends with a summary of what it did, and no transaction failed unexpectedly', () => {
    expect(reports.filter((r) => r.outcome === 'failed').map((r) => `${r.kind}: ${r.error}`)).toEqual([]);
    expect(summary).toEqual({
      company_id: company.publicId,
      seconds: expect.any(Number),
      transactions: reports.length,
      committed: reports.filter((r) => r.outcome === 'committed').length,
      rolled_back: reports.filter((r) => r.outcome !== 'committed').length,
      events: Object.fromEntries(ACTIVITY_KINDS.map((kind) => [kind, done(kind).length])),
    });
    expect(summary.seconds).toBeGreaterThanOrEqual(6);
    expect(summary.transactions).toBeGreaterThanOrEqual(60);
    // Every kind was written and committed at least once.
    expect(ACTIVITY_KINDS.filter((kind) => summary.events[kind] === 0)).toEqual([]);
  });

  it('captured new meetings and calls (the API lists them) and removed records', async () => {
    const removed = new Set(done('recording_removed').map((r) => r.subject));
    for (const [kind, collection] of [
      ['meeting_captured', 'meetings'],
      ['call_captured', 'calls'],
    ] as const) {
      const captured = done(kind).map((r) => r.subject);
      const listed = new Set(
        (await traverse(get, `/v1/${collection}?created_after=${new Date(startedAt.getTime() - 1000).toISOString()}`, [100])).ids,
      );
      expect(captured.filter((id) => !removed.has(id) && !listed.has(id))).toEqual([]);
      expect(captured.filter((id) => !removed.has(id)).length).toBeGreaterThan(0);
    }
    expect(removed.size).toBeGreaterThan(0);
    const left = await q(`SELECT public_id FROM recordings WHERE company_id = $1 AND public_id = ANY($2)`, [[...removed]]);
    expect(left).toEqual([]);
    for (const id of removed) await get(`/v1/${id.startsWith('mtg_') ? 'meetings' : 'calls'}/${id}`).expect(404);
  });

  it('moved transcripts, evaluations and template answers through their states', async () => {
    const since = [startedAt];
    const [{ transcripts }] = await q<{ transcripts: number }>(
      `SELECT count(*)::int AS transcripts FROM transcripts WHERE company_id = $1 AND created_at >= $2`,
      since,
    );
    expect(transcripts).toBeGreaterThan(0);
    // Records that were there before the run and are still there: their transcripts and evaluations moved on.
    const after = await states();
    const moved = (kind: ActivityKind, field: 'transcript' | 'evaluation') =>
      done(kind).filter(
        (r) => before.has(r.subject) && after.has(r.subject) && before.get(r.subject)![field] !== after.get(r.subject)![field],
      );
    expect(moved('transcript_advanced', 'transcript').length).toBeGreaterThan(0);
    expect(moved('evaluation_advanced', 'evaluation').length).toBeGreaterThan(0);
    // A completed transcript or evaluation is never taken back.
    const regressed = [...before.values()].filter((r) => {
      const now = after.get(r.public_id);
      return (
        now &&
        ((r.transcript.startsWith('completed') && !now.transcript.startsWith('completed')) ||
          (r.evaluation === 'completed' && now.evaluation !== 'completed'))
      );
    });
    expect(regressed).toEqual([]);
    const [{ evaluations }] = await q<{ evaluations: number }>(
      `SELECT count(*)::int AS evaluations FROM recording_evaluations WHERE company_id = $1 AND updated_at >= $2`,
      since,
    );
    expect(evaluations).toBeGreaterThan(0);
    // Answers stay with their record (unless it was removed afterwards, with its answers).
    const removed = new Set(done('recording_removed').map((r) => r.subject));
    const filled = done('answers_filled').filter((r) => !removed.has(r.subject));
    const answers = await q(`SELECT public_id FROM recording_answers WHERE company_id = $1 AND updated_at >= $2`, since);
    expect(answers.map((a) => a.public_id)).toEqual(expect.arrayContaining(filled.flatMap((r) => r.created)));
    expect(filled.flatMap((r) => r.created).length).toBeGreaterThan(0);
  });

  it('captured e-mails, some late: sent before the run started', async () => {
    const late = done('email_captured_late').flatMap((r) => r.created.filter((id) => id.startsWith('emsg_')));
    expect(late.length).toBeGreaterThan(0);
    const rows = await q<{ public_id: string; sent_at: Date }>(
      `SELECT public_id, sent_at FROM email_messages WHERE company_id = $1 AND public_id = ANY($2)`,
      [late],
    );
    expect(rows).toHaveLength(late.length);
    expect(rows.filter((m) => m.sent_at >= startedAt)).toEqual([]);
    const now = done('email_captured').flatMap((r) => r.created.filter((id) => id.startsWith('emsg_')));
    const [{ n }] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM email_messages WHERE company_id = $1 AND public_id = ANY($2)`, [
      now,
    ]);
    expect(n).toBe(now.length);
  });

  it('had chat messages arrive, be edited and revoked, and a chat deleted', async () => {
    const arrived = done('chat_message_arrived').flatMap((r) => r.created);
    const [{ n }] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM chat_messages WHERE company_id = $1 AND public_id = ANY($2)`, [
      arrived,
    ]);
    expect(n).toBe(arrived.length);
    expect(n).toBeGreaterThan(0);
    const edited = await q(`SELECT public_id FROM chat_messages WHERE company_id = $1 AND edited_at >= $2`, [startedAt]);
    expect(edited.map((m) => m.public_id)).toEqual(expect.arrayContaining(done('chat_message_edited').map((r) => r.subject)));
    const revoked = await q(
      `SELECT public_id FROM chat_messages WHERE company_id = $1 AND deleted_at >= $2 AND deleted_reason = 'revoked_for_everyone'`,
      [startedAt],
    );
    expect(revoked.map((m) => m.public_id).sort()).toEqual(
      done('chat_message_revoked')
        .map((r) => r.subject)
        .sort(),
    );
    const deleted = await q(`SELECT public_id FROM chat_conversations WHERE company_id = $1 AND deleted_at >= $2`, [startedAt]);
    expect(deleted.map((c) => c.public_id).sort()).toEqual(
      done('chat_deleted')
        .map((r) => r.subject)
        .sort(),
    );
    expect(deleted.length).toBeGreaterThan(0);
    for (const { public_id } of deleted) expect((await get(`/v1/chat/${public_id}`).expect(200)).body.data.deleted_at).not.toBeNull();
  });

  it('held transactions open while others started and committed: commit order differs from transaction id order', () => {
    const committed = reports.filter((r) => r.outcome === 'committed');
    const held = reports.filter((r) => r.heldMs >= 1500);
    expect(held.length).toBeGreaterThanOrEqual(2);
    // Some transaction began and ended entirely while a held one was open.
    const inside = held.flatMap((a) => reports.filter((b) => b !== a && b.opened > a.opened && b.closed < a.closed));
    expect(inside.length).toBeGreaterThan(0);
    // A later transaction (higher id) committed before an earlier one: what a change feed must not lose.
    const overtaken = committed.filter((a) => committed.some((b) => BigInt(b.txid) > BigInt(a.txid) && b.closed < a.closed));
    expect(overtaken.length).toBeGreaterThan(0);
    const maxOpen = Math.max(...reports.map((a) => reports.filter((b) => b.opened <= a.opened && b.closed > a.opened).length));
    expect(maxOpen).toBeGreaterThanOrEqual(2);
  });

  it('rolled back the failed captures, which left nothing behind', async () => {
    const failed = reports.filter((r) => r.outcome === 'rolled_back');
    expect(failed.length).toBeGreaterThan(0);
    const created = failed.flatMap((r) => r.created);
    expect(created.length).toBeGreaterThan(0);
    const found = await q(
      `SELECT public_id FROM recordings WHERE company_id = $1 AND public_id = ANY($2)
       UNION ALL SELECT public_id FROM email_messages WHERE company_id = $1 AND public_id = ANY($2)
       UNION ALL SELECT public_id FROM email_conversations WHERE company_id = $1 AND public_id = ANY($2)
       UNION ALL SELECT public_id FROM chat_messages WHERE company_id = $1 AND public_id = ANY($2)
       UNION ALL SELECT public_id FROM chat_conversations WHERE company_id = $1 AND public_id = ANY($2)`,
      [created],
    );
    expect(found).toEqual([]);
  });

  it('keeps every derived field true, in the database', async () => {
    const wrong = await q(
      `SELECT 'email ' || c.public_id AS what FROM email_conversations c
         JOIN (SELECT conversation_id, count(*) AS n, min(sent_at) AS first_at, max(sent_at) AS last_at FROM email_messages GROUP BY 1) m
           ON m.conversation_id = c.id
       WHERE c.company_id = $1 AND (c.message_count <> m.n OR c.first_message_at <> m.first_at OR c.last_message_at <> m.last_at)
       UNION ALL
       SELECT 'chat ' || c.public_id FROM chat_conversations c
         JOIN (SELECT conversation_id, min(sent_at) AS first_at, max(sent_at) AS last_at FROM chat_messages GROUP BY 1) m
           ON m.conversation_id = c.id
       WHERE c.company_id = $1 AND (c.first_message_at <> m.first_at OR c.last_message_at <> m.last_at)
       UNION ALL
       SELECT 'transcript ' || r.public_id FROM recordings r
       WHERE r.company_id = $1 AND (r.transcript_status = 'completed') <> EXISTS (SELECT 1 FROM transcripts t WHERE t.recording_id = r.id)
       UNION ALL
       SELECT 'evaluation ' || r.public_id FROM recordings r JOIN recording_evaluations e ON e.recording_id = r.id
       WHERE r.company_id = $1 AND (e.status = 'completed') <> (e.score IS NOT NULL)
       UNION ALL
       SELECT 'answer ' || r.public_id FROM recordings r JOIN recording_answers a ON a.recording_id = r.id
         JOIN template_questions q ON q.id = a.question_id
       WHERE r.company_id = $1 AND q.template_id IS DISTINCT FROM r.template_id`,
    );
    expect(wrong).toEqual([]);
  });

  it('keeps every derived field true, through the API', async () => {
    expect(await derivedFieldDisagreements(get)).toEqual([]);
  }, 120_000);
});
