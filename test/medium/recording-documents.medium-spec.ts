import { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { AppConfig } from '../../src/config/app-config';
import { DatabaseUrls } from '../../src/config/database-urls';
import { OwnerPool } from '../../src/database/owner-pool';
import { Metrics } from '../../src/metrics/metrics';
import { DocumentRefresher } from '../../src/read-model/document-refresher';
import { recordingDocumentRefresher } from '../../src/read-model/recording-documents';
import { DOCUMENT_FORMAT } from '../../src/recordings/recording.sql';
import { RecordingKind, RECORDING_KINDS } from '../../src/recordings/recording.vocabulary';
import { RecordingsRepository } from '../../src/recordings/recordings.repository';
import { RecordingsFactory, Ref, UserRef } from '../../src/seeding/recordings.factory';
import { createCompany } from '../support/factories';
import { asTenant } from '../support/repository-pages';
import { createTestApp, ownerDataSource } from '../support/test-app';

/**
 * The read model of meetings and calls (recording_documents): a stored document is exactly the
 * record rendered live; every write empties the documents it changes in its own transaction;
 * the refresher never writes a stale one, whichever way it and a writer interleave (forced
 * here with real transactions on separate connections); and readers render live whatever is
 * not current.
 */

let owner: DataSource;
let app: NestExpressApplication;
let repo: RecordingsRepository;
let refresher: DocumentRefresher;
let ownerPool: OwnerPool;
let company: Company;
let factory: RecordingsFactory;
let ana: UserRef;
let team: Ref;
let tag: Ref;
const records: Array<Ref & { kind: RecordingKind }> = [];

beforeAll(async () => {
  [owner, app] = await Promise.all([ownerDataSource(), createTestApp()]);
  repo = app.get(RecordingsRepository);
  ownerPool = new OwnerPool(app.get(DatabaseUrls), app.get(AppConfig), new Metrics(false));
  refresher = recordingDocumentRefresher(ownerPool);
  company = await createCompany(owner);
  factory = new RecordingsFactory(owner, company.id);
  ana = await factory.user({ name: 'Ana Lima', email: `ana.${company.publicId}@example.com` });
  const bruno = await factory.user({ name: 'Bruno Reis' });
  team = await factory.team('Vendas');
  await factory.membership(ana, team, 'leadership', true);
  tag = await factory.tag('prioridade');
  const template = await factory.template([
    { text: 'Qual o orçamento?', type: 'number' },
    { text: 'Quem decide?', type: 'text' },
  ]);
  const skill = await factory.skill('Descoberta');
  for (const kind of RECORDING_KINDS) {
    records.push({ kind, ...(await factory.recording(kind, { owner: ana })) });
    records.push({
      kind,
      ...(await factory.recording(kind, {
        owner: ana,
        template,
        tags: [tag, await factory.tag()],
        competitors: [await factory.competitor()],
        accounts: [await factory.account()],
        evaluation: 'completed',
        transcript: 'enhanced',
        enablement: { speakers: [ana, bruno], meetingType: 'qualification', nextSteps: 'Enviar proposta', othersSeconds: 30 },
        skillScores: [{ user: bruno, skill, score: 80 }],
        customerQuestions: [{ question: 'Tem integração?', category: 'produto' }],
      })),
    });
    records.push({ kind, ...(await factory.recording(kind, { owner: bruno, audience: 'internal' })) });
  }
});
afterAll(() => Promise.all([owner.destroy(), app.close(), ownerPool.onApplicationShutdown()]));

/** What the API answers for `r` now (the stored document when current, else rendered live). */
const read = async (r: { kind: RecordingKind; publicId: string }) =>
  (await asTenant(app, company.id, () => repo.findOne(company.id, r.kind, r.publicId)))?.document ?? null;

/** The `included` text the API answers for `r` with the parts the read model stores (stored when current, else rendered live). */
const readParts = async (r: { kind: RecordingKind; publicId: string }) =>
  (await asTenant(app, company.id, () => repo.findOne(company.id, r.kind, r.publicId, ['evaluation', 'answers', 'transcript'])))?.included ??
  null;

/** The stored parts of `r`, as the included object they make. */
async function storedParts(r: Ref): Promise<string | null> {
  const [row] = await owner.query('SELECT evaluation, answers, transcript FROM recording_documents WHERE recording_id = $1', [r.id]);
  return row?.evaluation == null ? null : `{"evaluation":${row.evaluation},"answers":${row.answers},"transcript":${row.transcript}}`;
}

/** The stored row of `r`, as the owner sees it. */
async function stored(r: Ref): Promise<{ document: string | null; format: number | null } | null> {
  const [row] = await owner.query('SELECT document, format FROM recording_documents WHERE recording_id = $1', [r.id]);
  return row ?? null;
}

/** Refreshes until nothing of this company's waits. */
const refreshAll = () => refresher.refreshAll();

describe('recording documents', () => {
  it('gives a new record an empty document in the transaction that creates it', async () => {
    for (const r of records) expect(await stored(r)).toEqual({ document: null, format: null });
  });

  it('stores, for every record, exactly the JSON the live rendering answers, and its evaluation, answers and transcript as include embeds them', async () => {
    const live = await Promise.all(records.map(read));
    const liveParts = await Promise.all(records.map(readParts));
    await refreshAll();
    for (const [i, r] of records.entries()) {
      expect(await stored(r)).toEqual({ document: live[i], format: DOCUMENT_FORMAT });
      expect(await read(r)).toBe(live[i]);
      expect(await storedParts(r)).toBe(liveParts[i]);
      expect(await readParts(r)).toBe(liveParts[i]);
    }
  });

  it('serves the stored parts only while the document is current: a write to a part empties it, and the answer is live until refreshed', async () => {
    const r = records[1]; // with a completed evaluation and answers
    await refreshAll();
    const marked = JSON.stringify({ ...JSON.parse((await storedParts(r))!).evaluation, justification: 'from the read model' });
    await owner.query('UPDATE recording_documents SET evaluation = $2 WHERE recording_id = $1', [r.id, marked]);
    expect(JSON.parse((await readParts(r))!).evaluation.justification).toBe('from the read model');
    await owner.query('UPDATE recording_evaluations SET score = 42 WHERE recording_id = $1', [r.id]);
    await owner.query(`UPDATE recording_answers SET answer = 'Revisada' WHERE recording_id = $1`, [r.id]);
    expect(await stored(r)).toEqual({ document: null, format: null });
    const served = JSON.parse((await readParts(r))!);
    expect(served.evaluation.score).toBe(42);
    expect(served.evaluation.justification).not.toBe('from the read model');
    expect(served.answers.length).toBeGreaterThan(0);
    expect(served.answers.every((a: { answer: string }) => a.answer === 'Revisada')).toBe(true);
    await refreshAll();
    expect(JSON.parse((await storedParts(r))!)).toEqual(served);
  });

  it('serves the stored transcript only while the document is current: a write to the transcript empties it', async () => {
    const r = records[1]; // with an enhanced transcript
    await refreshAll();
    const stored = JSON.parse((await storedParts(r))!).transcript;
    expect(stored.available).toBe(true);
    const marked = JSON.stringify({ ...stored, variant: 'from the read model' });
    await owner.query('UPDATE recording_documents SET transcript = $2 WHERE recording_id = $1', [r.id, marked]);
    expect(JSON.parse((await readParts(r))!).transcript.variant).toBe('from the read model');
    await owner.query(`UPDATE transcripts SET utterances = '[{"speaker": "Cliente", "text": "Revisada", "start_ms": 0, "end_ms": 900}]' WHERE recording_id = $1`, [
      r.id,
    ]);
    const served = JSON.parse((await readParts(r))!).transcript;
    expect(served.variant).not.toBe('from the read model');
    expect(served.utterances.map((u: { text: string }) => u.text)).toEqual(['Revisada']);
    await refreshAll();
    expect(JSON.parse((await storedParts(r))!).transcript).toEqual(served);
  });

  it('serves the stored document (not a live rendering) when it is current', async () => {
    const [r] = records;
    await refreshAll();
    const marked = JSON.stringify({ ...JSON.parse((await stored(r))!.document!), title: 'from the read model' });
    await owner.query('UPDATE recording_documents SET document = $2 WHERE recording_id = $1', [r.id, marked]);
    expect(JSON.parse((await read(r))!).title).toBe('from the read model');
    // A document of another format is never served: the record is rendered live.
    await owner.query('UPDATE recording_documents SET format = format + 1 WHERE recording_id = $1', [r.id]);
    expect(JSON.parse((await read(r))!).title).not.toBe('from the read model');
    // And the refresher writes it again in this format.
    await refreshAll();
    expect((await stored(r))!.format).toBe(DOCUMENT_FORMAT);
    expect(JSON.parse((await read(r))!).title).not.toBe('from the read model');
  });

  describe('every write empties the documents it changes, in its own transaction', () => {
    const full = () => records[1];
    const WRITES: Array<[string, () => Promise<unknown>, (doc: Record<string, unknown>) => unknown, unknown]> = [
      [
        'the record itself',
        () => owner.query('UPDATE recordings SET title = $2 WHERE id = $1', [full().id, 'Novo título']),
        (d) => d.title,
        'Novo título',
      ],
      [
        'a shared row it shows (a tag renamed)',
        () => owner.query('UPDATE tags SET name = $2 WHERE id = $1', [tag.id, 'urgente']),
        (d) => (d.tags as Array<{ name: string }>).map((t) => t.name).includes('urgente'),
        true,
      ],
      [
        'its owner renamed',
        () => owner.query('UPDATE users SET name = $2 WHERE id = $1', [ana.id, 'Ana Souza']),
        (d) => (d.owner as { name: string }).name,
        'Ana Souza',
      ],
      [
        "its owner's team renamed",
        () => owner.query('UPDATE teams SET name = $2 WHERE id = $1', [team.id, 'Vendas Sul']),
        (d) => (d.owner as { team: { name: string } }).team.name,
        'Vendas Sul',
      ],
      [
        'its evaluation',
        () => owner.query(`UPDATE recording_evaluations SET justification = 'Revisada.' WHERE recording_id = $1`, [full().id]),
        (d) => (d.overall_evaluation as { justification: string }).justification,
        'Revisada.',
      ],
      [
        'a link removed',
        () => owner.query('DELETE FROM recording_competitors WHERE recording_id = $1', [full().id]),
        (d) => d.competitors,
        [],
      ],
    ];

    it.each(WRITES)('%s', async (_what, write, pick, expected) => {
      await refreshAll();
      expect((await stored(full()))!.document).not.toBeNull();
      await write();
      expect(await stored(full())).toEqual({ document: null, format: null });
      expect(pick(JSON.parse((await read(full()))!))).toEqual(expected);
      await refreshAll();
      expect(pick(JSON.parse((await stored(full()))!.document!))).toEqual(expected);
    });

    it('a removed record loses its document with it', async () => {
      const gone = { kind: 'meeting' as const, ...(await factory.recording('meeting', { owner: ana })) };
      await refreshAll();
      await factory.removeRecording(gone.id);
      expect(await stored(gone)).toBeNull();
    });
  });

  describe('the refresher and a writer, interleaved', () => {
    let writer: Client;
    beforeEach(async () => {
      writer = new Client({ connectionString: app.get(DatabaseUrls).owner });
      await writer.connect();
    });
    afterEach(() => writer.end());

    /** Resolves once the writer's backend waits for a lock. */
    async function writerWaitsForALock(): Promise<void> {
      for (let i = 0; i < 200; i++) {
        const rows: Array<{ n: number }> = await owner.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'documents-test-writer' AND wait_event_type = 'Lock'`,
        );
        if (rows[0].n > 0) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('the writer never waited for a lock');
    }

    it('a write that commits while the refresher renders empties the document after it: never stale', async () => {
      const r = records[0];
      await refreshAll();
      await owner.query(`UPDATE recordings SET title = 'Antes' WHERE id = $1`, [r.id]); // empties it
      await writer.query(`SET application_name = 'documents-test-writer'`);
      let writing: Promise<unknown> | undefined;
      const run = await refresher.refreshBatch(1000, async (ids) => {
        expect(ids).toContain(r.id);
        // The refresher holds the row; the writer changes the record and must wait for it.
        writing = writer.query(`BEGIN; UPDATE recordings SET title = 'Depois' WHERE id = ${Number(r.id)}; COMMIT;`);
        await writerWaitsForALock();
      });
      expect(run.rendered).toBeGreaterThan(0);
      await writing;
      // The refresher wrote what it saw ('Antes'); the writer's commit emptied it after that.
      expect(await stored(r)).toEqual({ document: null, format: null });
      expect(JSON.parse((await read(r))!).title).toBe('Depois');
      await refreshAll();
      expect(JSON.parse((await stored(r))!.document!).title).toBe('Depois');
    });

    it('a write in progress keeps the refresher off the document until it commits', async () => {
      const r = records[2];
      await refreshAll();
      await writer.query('BEGIN');
      await writer.query(`UPDATE recordings SET title = 'Em curso' WHERE id = $1`, [r.id]);
      let locked: string[] = [];
      await refresher.refreshBatch(1000, async (ids) => void (locked = ids));
      expect(locked).not.toContain(r.id); // skipped: the writer holds it
      // Until the writer commits, everyone else still sees the old title and its document.
      expect(JSON.parse((await stored(r))!.document!).title).not.toBe('Em curso');
      await writer.query('COMMIT');
      expect(await stored(r)).toEqual({ document: null, format: null });
      await refreshAll();
      expect(JSON.parse((await stored(r))!.document!).title).toBe('Em curso');
    });
  });

  it('removes the documents of records gone while the capture was off, and adds missing ones', async () => {
    const orphan = { id: '999999999', publicId: 'mtg_none' };
    await owner.query('INSERT INTO recording_documents (recording_id, company_id) VALUES ($1, $2)', [orphan.id, company.id]);
    const r = records[3];
    await owner.query('DELETE FROM recording_documents WHERE recording_id = $1', [r.id]);
    expect(await refresher.addMissing()).toBeGreaterThanOrEqual(1);
    const run = await refreshAll();
    expect(run.removed).toBeGreaterThanOrEqual(1);
    expect(await stored(orphan)).toBeNull();
    expect((await stored(r))!.format).toBe(DOCUMENT_FORMAT);
    expect(await refresher.waiting()).toBe(0);
  });
});
