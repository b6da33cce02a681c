import { base, Faker, pt_BR } from '@faker-js/faker';
import { DataSource } from 'typeorm';
import { CompaniesRepository } from '../../src/companies/companies.repository';
import { CompaniesService } from '../../src/companies/companies.service';
import { Company } from '../../src/companies/company.entity';
import { loadConfig } from '../../src/config/app-config';
import { ACTIVITY_KINDS, ActivityKind, CaptureEvents, FALLBACK, referencePool, Written } from '../../src/seeding/activity-events';
import { DemoSeeder } from '../../src/seeding/demo-seeder';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { VolumeSeeder } from '../../src/seeding/volume-seeder';
import { createCompany } from '../support/factories';
import { ownerDataSource } from '../support/test-app';

/** What each kind of capture event writes, one event at a time, against the real schema. */
describe('capture events (seed:activity), one at a time', () => {
  let owner: DataSource;
  let demo: Company;
  const startedAt = new Date();

  /** One event of `kind` in its own transaction, as the simulator runs it. */
  const write = (company: Company, kind: ActivityKind, captured: string[] = [], seed = 7, db: DataSource = owner): Promise<Written> =>
    db.transaction(async (m) =>
      new CaptureEvents(m, company.id, new Faker({ locale: [pt_BR, base], seed }), await referencePool(m, company.id), {
        startedAt,
        captured,
      }).write(kind),
    );
  const one = async (sql: string, params: unknown[]) => (await owner.query(sql, params))[0];

  beforeAll(async () => {
    owner = await ownerDataSource();
    const { company_id } = await DemoSeeder.over(owner, loadConfig({ NODE_ENV: 'test' })).seed();
    demo = await owner.getRepository(Company).findOneByOrFail({ publicId: company_id });
    // Every demo record's template is answered: one capture whose questions are not yet.
    await owner.transaction(async (m) => {
      const pool = await referencePool(m, demo.id);
      await new RecordingsFactory(m, demo.id).recording('call', { owner: pool.users[0], template: pool.templates[0], answers: null });
    });
  }, 60_000);
  afterAll(() => owner.destroy());

  /** Where each kind's subject stands afterwards. */
  const effect: Record<ActivityKind, string> = {
    meeting_captured: `SELECT kind = 'meeting' AND transcript_status IN ('not_started', 'processing') AS ok FROM recordings WHERE public_id = $1`,
    call_captured: `SELECT kind = 'call' AND transcript_status IN ('not_started', 'processing') AS ok FROM recordings WHERE public_id = $1`,
    transcript_advanced: `SELECT transcript_status <> 'not_started' AS ok FROM recordings WHERE public_id = $1`,
    evaluation_advanced: `SELECT true AS ok FROM recordings r JOIN recording_evaluations e ON e.recording_id = r.id WHERE r.public_id = $1`,
    answers_filled: `SELECT count(*) > 0 AS ok FROM recordings r JOIN recording_answers a ON a.recording_id = r.id WHERE r.public_id = $1`,
    email_captured: `SELECT last_message_at > now() - interval '1 minute' AS ok FROM email_conversations WHERE public_id = $1`,
    email_captured_late: `SELECT min(m.sent_at) < $2 AS ok FROM email_conversations c JOIN email_messages m ON m.conversation_id = c.id WHERE c.public_id = $1`,
    chat_started: `SELECT count(*) = 1 AS ok FROM chat_conversations c JOIN chat_messages m ON m.conversation_id = c.id WHERE c.public_id = $1`,
    chat_message_arrived: `SELECT last_message_at > now() - interval '1 minute' AS ok FROM chat_conversations WHERE public_id = $1`,
    chat_message_edited: `SELECT edited_at IS NOT NULL AND deleted_at IS NULL AS ok FROM chat_messages WHERE public_id = $1`,
    chat_message_revoked: `SELECT deleted_reason = 'revoked_for_everyone' AS ok FROM chat_messages WHERE public_id = $1`,
    chat_deleted: `SELECT deleted_at IS NOT NULL AND deleted_reason IS NOT NULL AS ok FROM chat_conversations WHERE public_id = $1`,
    recording_removed: `SELECT count(*) = 0 AS ok FROM recordings WHERE public_id = $1`,
  };

  /** Each demo record's transcript (status and variants) and evaluation (status), by public id. */
  const states = async (): Promise<Map<string, string>> =>
    new Map(
      (
        await owner.query(
          `SELECT r.public_id, r.transcript_status || ' ' || coalesce((SELECT string_agg(t.variant, ',' ORDER BY t.variant) FROM transcripts t
             WHERE t.recording_id = r.id), '') || ' ' || coalesce(e.status, 'none') AS state
           FROM recordings r LEFT JOIN recording_evaluations e ON e.recording_id = r.id WHERE r.company_id = $1`,
          [demo.id],
        )
      ).map((r: { public_id: string; state: string }) => [r.public_id, r.state]),
    );

  it.each(ACTIVITY_KINDS)('%s on demo data writes that kind', async (kind) => {
    const before = await states();
    const written = await write(demo, kind);
    expect(written.kind).toBe(kind);
    expect(await one(effect[kind], kind === 'email_captured_late' ? [written.subject, startedAt] : [written.subject])).toEqual({
      ok: true,
    });
    // A transcript or an evaluation moved on: the record's state is another one.
    if (kind === 'transcript_advanced' || kind === 'evaluation_advanced')
      expect((await states()).get(written.subject)).not.toBe(before.get(written.subject));
  });

  it('a late e-mail was sent within the week before the run, a minute before it at the latest', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const written = await write(demo, 'email_captured_late', [], seed);
      const message = written.created.find((id) => id.startsWith('emsg_'));
      const { sent_at } = await one('SELECT sent_at FROM email_messages WHERE public_id = $1', [message]);
      expect(sent_at.getTime()).toBeLessThanOrEqual(startedAt.getTime() - 60_000);
      expect(sent_at.getTime()).toBeGreaterThanOrEqual(startedAt.getTime() - 7 * 86_400_000 - 60_000);
    }
  });

  it('removes a record the run captured before any other', async () => {
    const captured = await write(demo, 'call_captured');
    const removed = await write(demo, 'recording_removed', [captured.captured!]);
    expect(removed.subject).toBe(captured.subject);
  });

  it('skips what another transaction holds: with every chat claimed elsewhere, a message arrival starts a new chat instead', async () => {
    const other = await ownerDataSource();
    const holder = other.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query('SELECT id FROM chat_conversations WHERE company_id = $1 FOR NO KEY UPDATE', [demo.id]);
      const started = Date.now();
      const written = await write(demo, 'chat_message_arrived');
      expect(written.kind).toBe('chat_started');
      expect(Date.now() - started).toBeLessThan(2000); // skipped, not waited for
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
      await other.destroy();
    }
  });

  it('on volume data (seed:volume), each kind writes itself', async () => {
    const company = await createCompany(owner);
    await new VolumeSeeder(owner, new CompaniesService(new CompaniesRepository(owner))).seed({
      company: company.publicId,
      meetings: 300,
      calls: 300,
      emails: 20,
      chats: 20,
      messages: 5,
    });
    const fellBack: string[] = [];
    for (const [seed, kind] of ACTIVITY_KINDS.entries()) {
      const written = await write(company, kind, [], seed);
      if (written.kind !== kind) fellBack.push(`${kind} → ${written.kind}`);
    }
    expect(fellBack).toEqual([]);
  }, 60_000);

  it('on a company without data, each kind writes itself or its fallback, the first giving it a seller and a mailbox', async () => {
    const bare = await createCompany(owner);
    const kinds: string[] = [];
    for (const [seed, kind] of ACTIVITY_KINDS.entries()) {
      const written = await write(bare, kind, [], seed);
      expect([kind, FALLBACK[kind]]).toContain(written.kind);
      kinds.push(written.kind);
    }
    // The e-mail, chat and capture kinds have something to act on by the time the later ones come.
    expect(kinds).toContain('chat_message_arrived');
    expect(
      await one(
        'SELECT (SELECT count(*)::int FROM users WHERE company_id = $1) AS users, (SELECT count(*)::int FROM mailboxes WHERE company_id = $1) AS mailboxes',
        [bare.id],
      ),
    ).toEqual({ users: 1, mailboxes: 1 });
  });
});
