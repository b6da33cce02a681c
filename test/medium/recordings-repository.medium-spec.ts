import { NestExpressApplication } from '@nestjs/platform-express';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DataSource } from 'typeorm';
import { TimeIdPosition } from '../../src/common/cursors/keyset-page';
import { Company } from '../../src/companies/company.entity';
import { ListRecordingsQuery } from '../../src/recordings/list-recordings.query';
import { RecordingKind } from '../../src/recordings/recording.vocabulary';
import { recordingDocuments, RecordingDocumentRow } from '../../src/recordings/recording.sql';
import { limitClause } from '../../src/database/sql';
import { RecordingsRepository } from '../../src/recordings/recordings.repository';
import { RecordingsFactory, Ref, TRANSCRIPT_STATES, TranscriptState, UserRef } from '../../src/seeding/recordings.factory';
import { createCompany } from '../support/factories';
import { asTenant, comparePositions, expectStrictlyIncreasing, walkRepository } from '../support/repository-pages';
import { createTestApp, ownerDataSource } from '../support/test-app';

/**
 * RecordingsRepository against the real database, called as RecordingsService calls it: inside
 * the company's tenant transaction, with the query as the validation pipe builds it. What each
 * filter of ListRecordingsQuery selects (bounds exclusive, to the microsecond), on both of the
 * list's statements (with and without `owner_email`); the keyset order `(created_at, id)`
 * across full traversals; and deletion, which for records is removal (the schema keeps no
 * tombstone for them: see the recordings migration).
 */

const minutes = (from: string, n: number) => new Date(Date.parse(from) + n * 60_000);
const hours = (from: string, n: number) => new Date(Date.parse(from) + n * 3_600_000);

/** The query of `GET /v1/meetings?…` as the validation pipe turns the query string into it. */
function query(params: Record<string, string> = {}): ListRecordingsQuery {
  const q = plainToInstance(ListRecordingsQuery, params);
  expect(validateSync(q)).toEqual([]); // only queries the API would accept
  return q;
}

const positionOf = (r: RecordingDocumentRow): TimeIdPosition => [r.created_micros, r.id];

let owner: DataSource;
let app: NestExpressApplication;
let repo: RecordingsRepository;

beforeAll(async () => {
  [owner, app] = await Promise.all([ownerDataSource(), createTestApp()]);
  repo = app.get(RecordingsRepository);
});
afterAll(() => Promise.all([owner.destroy(), app.close()]));

describe.each<[RecordingKind, RecordingKind]>([
  ['meeting', 'call'],
  ['call', 'meeting'],
])('RecordingsRepository (%s)', (kind, otherKind) => {
  const list = (company: Company, q: ListRecordingsQuery, after: TimeIdPosition | null = null, take = 101) =>
    asTenant(app, company.id, () => repo.listPage(company.id, kind, q, after, take));
  const ids = (rows: Array<{ public_id: string }>) => rows.map((r) => r.public_id);

  describe('filters', () => {
    const T0 = '2026-03-01T00:00:00Z';
    const M0 = '2026-02-01T00:00:00Z';
    /** Record i: created i × 10 minutes after T0, its meeting at a shuffled hour after M0 (another order). */
    const MEETING_HOURS = [7, 3, 11, 0, 5, 9, 1, 10, 2, 8, 4, 6];
    const OWNERS = ['ana', 'bruno', 'twin', 'bruno'] as const;
    interface Made {
      ref: Ref;
      created: number;
      meeting: number;
      media: 'video' | 'audio';
      audience: 'internal' | 'external';
      transcript: TranscriptState;
      owner: (typeof OWNERS)[number];
    }
    let company: Company;
    let made: Made[];

    beforeAll(async () => {
      const other = await createCompany(owner);
      company = await createCompany(owner);
      const f = new RecordingsFactory(owner, company.id);
      // Two users share an address, in different case: the filter takes both.
      const users: Record<Made['owner'], UserRef> = {
        ana: await f.user({ email: 'ana.souza@example.com' }),
        twin: await f.user({ email: 'Ana.Souza@Example.COM' }),
        bruno: await f.user({ email: 'bruno@example.com' }),
      };
      made = [];
      for (let i = 0; i < MEETING_HOURS.length; i++) {
        const spec = {
          created: i * 10,
          meeting: MEETING_HOURS[i],
          media: i % 2 === 0 ? 'video' : 'audio',
          audience: i % 3 === 0 ? 'internal' : 'external',
          transcript: TRANSCRIPT_STATES[i % TRANSCRIPT_STATES.length],
          owner: OWNERS[i % OWNERS.length],
        } as const;
        const ref = await f.recording(kind, {
          owner: users[spec.owner],
          createdAt: minutes(T0, spec.created),
          meetingAt: hours(M0, spec.meeting),
          mediaType: spec.media,
          audience: spec.audience,
          transcript: spec.transcript,
        });
        made.push({ ref, ...spec });
      }
      // Records every filter below would take, were they not of the other kind, or of another company.
      for (let i = 0; i < 4; i++) {
        await f.recording(otherKind, { owner: users.ana, createdAt: minutes(T0, i * 10), meetingAt: hours(M0, i), transcript: 'original' });
      }
      const o = new RecordingsFactory(owner, other.id);
      const stranger = await o.user({ email: 'ana.souza@example.com' });
      for (let i = 0; i < 4; i++) {
        await o.recording(kind, { owner: stranger, createdAt: minutes(T0, i * 10 + 5), meetingAt: hours(M0, i), transcript: 'original' });
      }
    });

    const expected = (keep: (m: Made) => boolean) => made.filter(keep).map((m) => m.ref.publicId);
    const readable = (m: Made) => m.transcript === 'original' || m.transcript === 'enhanced';
    const anas = (m: Made) => m.owner === 'ana' || m.owner === 'twin';

    it('without a filter: every record of the kind and of the company, in created_at order', async () => {
      expect(ids(await list(company, query()))).toEqual(expected(() => true));
    });

    const FILTERS: Array<[string, Record<string, string>, (m: Made) => boolean]> = [
      ['created_after (exclusive: not the record created at the bound)', { created_after: '2026-03-01T00:30:00Z' }, (m) => m.created > 30],
      ['created_after one microsecond before a record', { created_after: '2026-03-01T00:29:59.999999Z' }, (m) => m.created >= 30],
      ['created_after with an offset', { created_after: '2026-02-28T21:30:00-03:00' }, (m) => m.created > 30],
      ['created_before (exclusive)', { created_before: '2026-03-01T00:30:00Z' }, (m) => m.created < 30],
      ['created_before one microsecond after a record', { created_before: '2026-03-01T00:30:00.000001Z' }, (m) => m.created <= 30],
      [
        'created_after and created_before',
        { created_after: '2026-03-01T00:20:00Z', created_before: '2026-03-01T01:20:00Z' },
        (m) => m.created > 20 && m.created < 80,
      ],
      ['meeting_after (on meeting_at, not created_at)', { meeting_after: '2026-02-01T05:00:00Z' }, (m) => m.meeting > 5],
      ['meeting_before', { meeting_before: '2026-02-01T05:00:00Z' }, (m) => m.meeting < 5],
      [
        'meeting_after and meeting_before',
        { meeting_after: '2026-02-01T02:00:00Z', meeting_before: '2026-02-01T09:00:00Z' },
        (m) => m.meeting > 2 && m.meeting < 9,
      ],
      ['type=video', { type: 'video' }, (m) => m.media === 'video'],
      ['type=audio', { type: 'audio' }, (m) => m.media === 'audio'],
      ['audience=internal', { audience: 'internal' }, (m) => m.audience === 'internal'],
      ['audience=external', { audience: 'external' }, (m) => m.audience === 'external'],
      ['has_transcript=true (completed, original or enhanced)', { has_transcript: 'true' }, readable],
      ['has_transcript=false (not started, processing, failed)', { has_transcript: 'false' }, (m) => !readable(m)],
      [
        'every filter at once',
        {
          created_after: '2026-03-01T00:00:00Z',
          created_before: '2026-03-01T01:50:00Z',
          meeting_after: '2026-02-01T00:00:00Z',
          type: 'video',
          audience: 'external',
          has_transcript: 'true',
        },
        (m) => m.created > 0 && m.created < 110 && m.meeting > 0 && m.media === 'video' && m.audience === 'external' && readable(m),
      ],
    ];

    it.each(FILTERS)('%s', async (_name, params, keep) => {
      const want = expected(keep);
      expect(want.length).toBeGreaterThan(0); // each filter selects something …
      expect(want.length).toBeLessThan(made.length); // … and leaves something out
      expect(ids(await list(company, query(params)))).toEqual(want);
    });

    it.each([
      ['as given (the pipe lowercases it): every user with that address, merged in order', 'Ana.Souza@Example.com', anas],
      ['of one user', 'bruno@example.com', (m: Made) => m.owner === 'bruno'],
      ['nobody has', 'nobody@example.com', () => false],
    ])('owner_email %s', async (_name, email, keep) => {
      expect(ids(await list(company, query({ owner_email: email })))).toEqual(expected(keep));
    });

    it.each(FILTERS)('%s, with owner_email (the statement that resolves owners first)', async (_name, params, keep) => {
      expect(ids(await list(company, query({ ...params, owner_email: 'ana.souza@example.com' })))).toEqual(
        expected((m) => keep(m) && anas(m)),
      );
    });

    it('answers at most `take` rows, the first ones, on both statements (the fetch size is rounded up, the page is not)', async () => {
      for (const params of [{}, { owner_email: 'ana.souza@example.com' }] as Array<Record<string, string>>) {
        const all = ids(await list(company, query(params)));
        for (const take of [1, 2, 3, 7, 11, 12]) {
          expect(ids(await list(company, query(params), null, take))).toEqual(all.slice(0, take));
        }
      }
    });

    it('renders documents and parts for the page only, not for the rows its fetch size reads beyond it', async () => {
      const take = 3; // read as LIMIT 6 (limitClause): the statement renders 3
      const records = `SELECT r.* FROM recordings r WHERE r.company_id = $1 AND r.kind = $2 ORDER BY r.created_at, r.id ${limitClause(take)}`;
      const sql = recordingDocuments(kind, records, ['evaluation', 'answers', 'transcript'], '$3');
      const [{ 'QUERY PLAN': [plan] }] = await owner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, [company.id, kind, take]);
      const nodes: Array<{ 'Node Type': string; 'Actual Rows': number }> = [];
      const visit = (node: { Plans?: unknown[] }) => {
        nodes.push(node as (typeof nodes)[number]);
        (node.Plans ?? []).forEach((child) => visit(child as { Plans?: unknown[] }));
      };
      visit(plan.Plan);
      const pageRows = nodes.filter((n) => n['Node Type'] === 'CTE Scan').map((n) => n['Actual Rows']);
      expect(made.length).toBeGreaterThan(2 * take); // the fetch size would find more
      expect(pageRows).toEqual([take]);
      expect(plan.Plan['Actual Rows']).toBe(take);
    });
  });

  describe('keyset order', () => {
    const T1 = '2026-04-01T00:00:00Z';
    let company: Company;
    let ana: UserRef;
    let bruno: UserRef;
    /** Every record of the kind as stored, sorted here (not by SQL) in `(created_at, id)` order. */
    let stored: Array<{ publicId: string; position: TimeIdPosition; media: string; ownerId: string; completed: boolean }>;

    beforeAll(async () => {
      company = await createCompany(owner);
      const f = new RecordingsFactory(owner, company.id);
      [ana, bruno] = [await f.user(), await f.user()];
      await f.bulk(kind, 30, ana, new Date(T1)); // one second apart, T1 + 1 s … T1 + 30 s
      // 25 records created at the very instant of the 15th: a run of 26 ties, across two owners.
      await f.bulk(kind, 25, bruno, new Date(Date.parse(T1) + 15_000), { sameCreatedAt: true });
      await f.bulk(otherKind, 10, ana, new Date(T1)); // the other kind, at the same instants
      const rows: Array<{ public_id: string; micros: string; id: string; media_type: string; owner_id: string; completed: boolean }> =
        await owner.query(
          `SELECT public_id, (extract(epoch FROM created_at) * 1000000)::bigint::text AS micros, id::text, media_type,
             owner_id::text, transcript_status = 'completed' AS completed
           FROM recordings WHERE company_id = $1 AND kind = $2`,
          [company.id, kind],
        );
      stored = rows
        .map((r) => ({
          publicId: r.public_id,
          position: [r.micros, r.id] as TimeIdPosition,
          media: r.media_type,
          ownerId: r.owner_id,
          completed: r.completed,
        }))
        .sort((a, b) => comparePositions(a.position, b.position));
    });

    const walk = (params: Record<string, string>, limits: number[]) =>
      walkRepository((after, take) => list(company, query(params), after, take), positionOf, limits);

    it.each([[[1]], [[2]], [[5]], [[7, 1, 100, 3]], [[100]]])(
      'reads every record exactly once, in (created_at, id) order, page after page (limits %j)',
      async (limits) => {
        expect(stored).toHaveLength(55);
        const { items, pages } = await walk({}, limits);
        expect(ids(items)).toEqual(stored.map((s) => s.publicId));
        expectStrictlyIncreasing(items.map(positionOf));
        if (limits.length === 1) expect(pages).toHaveLength(Math.ceil(stored.length / limits[0]));
      },
    );

    it('breaks ties on created_at by id, also where a page ends inside the run of ties', async () => {
      const tieTime = stored[14].position[0];
      const run = stored.filter((s) => s.position[0] === tieTime);
      expect(run).toHaveLength(26);
      const { items, pages } = await walk({}, [4]);
      const ends = pages.map((p) => positionOf(p[p.length - 1])[0]);
      expect(ends.filter((t) => t === tieTime).length).toBeGreaterThanOrEqual(5); // pages ended inside the run
      const seen = items.filter((r) => r.created_micros === tieTime);
      expect(ids(seen)).toEqual(run.map((s) => s.publicId));
      expect(seen.map((r) => BigInt(r.id))).toEqual(run.map((s) => BigInt(s.position[1])).sort((a, b) => (a < b ? -1 : 1)));
    });

    it.each([
      ['type=video', { type: 'video' }, [3]],
      ['has_transcript=true', { has_transcript: 'true' }, [1, 2]],
      ['owner_email (ties all of one owner)', { owner_email: 'OWNER' }, [4]],
      ['owner_email and type=audio', { owner_email: 'OWNER', type: 'audio' }, [2, 5]],
    ])('keeps the order and the filter across pages: %s', async (_name, params, limits) => {
      const p = { ...params } as Record<string, string>;
      if (p.owner_email) p.owner_email = bruno.email;
      const keep = (s: (typeof stored)[number]) =>
        (!p.type || s.media === p.type) && (!p.has_transcript || s.completed) && (!p.owner_email || s.ownerId === bruno.id);
      const want = stored.filter(keep).map((s) => s.publicId);
      expect(want.length).toBeGreaterThan(limits[0]);
      const { items } = await walk(p, limits);
      expect(ids(items)).toEqual(want);
    });

    it('reads nothing after the last position, and everything after a position before the first', async () => {
      const last = stored[stored.length - 1].position;
      expect(await list(company, query(), last)).toEqual([]);
      const before: TimeIdPosition = [String(BigInt(stored[0].position[0]) - 1n), '0'];
      expect(ids(await list(company, query(), before))).toEqual(stored.map((s) => s.publicId));
    });
  });

  describe('deletion: a record is removed, not marked', () => {
    it('has no tombstone column: nothing marks a record deleted, so nothing is to be hidden', async () => {
      const columns: Array<{ column_name: string }> = await owner.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'recordings' AND column_name ~ 'delet|remov|archiv'`,
      );
      expect(columns).toEqual([]);
    });

    it('a removed record leaves every read, and a position on it still continues the walk without a skip', async () => {
      const company = await createCompany(owner);
      const f = new RecordingsFactory(owner, company.id);
      const user = await f.user();
      await f.bulk(kind, 12, user, new Date('2026-05-01T00:00:00Z'));
      const all = await list(company, query());
      expect(all).toHaveLength(12);

      const first = await list(company, query(), null, 5);
      const after = positionOf(first[3]); // the page of 4 ends here: the next page starts after it
      // The row under the cursor and the next one go (their relations with them, ON DELETE CASCADE).
      const removed = [all[3], all[4]];
      await owner.query('DELETE FROM recordings WHERE id = ANY($1::bigint[])', [removed.map((r) => r.id)]);

      expect(ids(await list(company, query(), after))).toEqual(ids(all.slice(5)));
      expect(ids(await list(company, query()))).toEqual(ids([...all.slice(0, 3), ...all.slice(5)]));
      for (const r of removed) {
        expect(await asTenant(app, company.id, () => repo.findOne(company.id, kind, r.public_id))).toBeNull();
        expect(await asTenant(app, company.id, () => repo.part(company.id, kind, r.public_id, 'transcript'))).toBeNull();
        const [orphans] = await owner.query('SELECT count(*)::int AS n FROM transcripts WHERE recording_id = $1', [r.id]);
        expect(orphans.n).toBe(0);
      }
      expect(await asTenant(app, company.id, () => repo.findOne(company.id, kind, all[5].public_id))).toMatchObject({
        public_id: all[5].public_id,
      });
    });
  });
});
