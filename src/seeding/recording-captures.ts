import { RecordingKind, TranscriptStatus } from '../recordings/recording.vocabulary';
import { Written } from './activity-kinds';
import { CANDIDATES, CaptureWriter, KEEP } from './capture-writer';
import { customerParticipants, DEMO_QUESTIONS, MEETING_LABELS, salesTranscript } from './demo-content';

/** The capture events of meetings and calls: captured, their transcript and evaluation advanced, answers filled, removed. */
export class RecordingCaptures extends CaptureWriter {
  /** A meeting or call just ended: captured with its transcript not ready yet, template questions unanswered, no evaluation. */
  async captured(kind: RecordingKind): Promise<Written> {
    const { f, pool } = this;
    const account = this.account();
    const durationSeconds = f.number.int({ min: 300, max: 3600 });
    const meetingAt = new Date(Date.now() - (durationSeconds + f.number.int({ min: 60, max: 900 })) * 1000);
    const external = f.datatype.boolean(0.8);
    const template = pool.templates.length && f.datatype.boolean(0.7) ? f.helpers.arrayElement(pool.templates) : undefined;
    const ref = await this.recordings.recording(kind, {
      owner: f.helpers.arrayElement(pool.users),
      title: `${kind === 'meeting' ? 'Reunião' : 'Ligação'} ${f.helpers.arrayElement(MEETING_LABELS)} — ${f.company.name()}`,
      mediaType: kind === 'call' || f.datatype.boolean(0.2) ? 'audio' : 'video',
      meetingAt,
      durationSeconds,
      noShow: f.datatype.boolean(0.05),
      transcript: f.datatype.boolean(0.7) ? 'not_started' : 'processing',
      template,
      answers: null,
      tags: f.helpers.arrayElements(pool.tags, { min: 0, max: Math.min(2, pool.tags.length) }),
      competitors: f.helpers.arrayElements(pool.competitors, { min: 0, max: Math.min(1, pool.competitors.length) }),
      accounts: account ? [account] : [],
      participants: external ? customerParticipants(f, kind, f.person.fullName(), account?.domain ?? 'cliente.com.br') : [],
      botHistory: [
        { code: 'joining_call', subcode: null, occurred_at: meetingAt.toISOString() },
        { code: 'in_call_recording', subcode: null, occurred_at: new Date(meetingAt.getTime() + 60_000).toISOString() },
      ],
    });
    return { kind: `${kind}_captured`, subject: ref.publicId, created: [ref.publicId], captured: ref.id };
  }

  /** not_started → processing → completed (the original variant) or failed → processing again; completed → the enhanced variant. */
  async transcriptAdvanced(): Promise<Written | null> {
    const pending = `(r.transcript_status <> 'completed' OR NOT EXISTS (SELECT 1 FROM transcripts t WHERE t.recording_id = r.id AND t.variant = 'enhanced'))`;
    const row = await this.claimRecording<{
      id: string;
      public_id: string;
      transcript_status: TranscriptStatus;
      duration_seconds: number;
      owner: string;
      customer: string;
      has_original: boolean;
    }>(
      `SELECT r.id FROM (${this.newest('id, transcript_status')}) r WHERE ${pending}`,
      `SELECT r.id, r.public_id, r.transcript_status, r.duration_seconds, u.name AS owner,
         coalesce(r.participants->0->>'display_name', 'Participante') AS customer,
         EXISTS (SELECT 1 FROM transcripts t WHERE t.recording_id = r.id AND t.variant = 'original') AS has_original
       FROM recordings r JOIN users u ON u.id = r.owner_id
       WHERE r.id = $1 AND ${pending} FOR NO KEY UPDATE OF r SKIP LOCKED`,
    );
    if (!row) return null;
    const utterances = () => salesTranscript(row.owner, row.customer, row.duration_seconds, this.f.number.int(1000));
    if (row.transcript_status === 'completed') {
      await this.recordings.transcript(row.id, row.has_original ? 'enhanced' : 'original', utterances());
    } else if (row.transcript_status !== 'processing') {
      await this.recordings.transcriptStatus(row.id, 'processing');
    } else if (this.f.datatype.boolean(0.85)) {
      if (!row.has_original) await this.recordings.transcript(row.id, 'original', utterances());
      await this.recordings.transcriptStatus(row.id, 'completed');
    } else {
      await this.recordings.transcriptStatus(row.id, 'failed');
    }
    return { kind: 'transcript_advanced', subject: row.public_id, created: [] };
  }

  /** On a readable transcript: none → not_started or processing → completed (a score) or failed → processing again. */
  async evaluationAdvanced(): Promise<Written | null> {
    const pending = `r.transcript_status = 'completed' AND e.status IS DISTINCT FROM 'completed'`;
    const row = await this.claimRecording<{ id: string; public_id: string; status: string | null }>(
      `SELECT r.id FROM (${this.newest('id, transcript_status')}) r LEFT JOIN recording_evaluations e ON e.recording_id = r.id WHERE ${pending}`,
      `SELECT r.id, r.public_id, e.status FROM recordings r LEFT JOIN recording_evaluations e ON e.recording_id = r.id
       WHERE r.id = $1 AND ${pending} FOR NO KEY UPDATE OF r SKIP LOCKED`,
    );
    if (!row) return null;
    const created: string[] = [];
    if (row.status === null)
      created.push((await this.recordings.evaluation(row.id, this.f.datatype.boolean() ? 'not_started' : 'processing')).publicId);
    else if (row.status !== 'processing') await this.recordings.evaluationStatus(row.id, 'processing');
    else if (this.f.datatype.boolean(0.85))
      await this.recordings.evaluationStatus(row.id, 'completed', this.f.number.int({ min: 35, max: 98 }));
    else await this.recordings.evaluationStatus(row.id, 'failed');
    return { kind: 'evaluation_advanced', subject: row.public_id, created };
  }

  /** The next one or two unanswered questions of a record's template get their answers. */
  async answersFilled(): Promise<Written | null> {
    const unanswered = `FROM template_questions q WHERE q.template_id = r.template_id
      AND NOT EXISTS (SELECT 1 FROM recording_answers a WHERE a.recording_id = r.id AND a.question_id = q.id)`;
    const row = await this.claimRecording<{ id: string; public_id: string; questions: Array<{ id: string; type: string }> }>(
      `SELECT r.id FROM (${this.newest('id, template_id', 'AND template_id IS NOT NULL')}) r WHERE EXISTS (SELECT 1 ${unanswered})`,
      `SELECT r.id, r.public_id, (SELECT json_agg(json_build_object('id', q.id::text, 'type', q.type) ORDER BY q.position) ${unanswered}) AS questions
       FROM recordings r WHERE r.id = $1 AND EXISTS (SELECT 1 ${unanswered}) FOR NO KEY UPDATE OF r SKIP LOCKED`,
    );
    if (!row) return null;
    const created: string[] = [];
    for (const q of row.questions.slice(0, this.f.number.int({ min: 1, max: 2 }))) {
      const answers = DEMO_QUESTIONS.find((d) => d.type === q.type)?.answers ?? ['Resposta'];
      created.push((await this.recordings.answer(row.id, q, this.f.helpers.arrayElement(answers))).publicId);
    }
    return { kind: 'answers_filled', subject: row.public_id, created };
  }

  /** A record is removed (with everything it shows): one this run captured when there is one, else one of the newest. */
  async removed(): Promise<Written | null> {
    const claim = `SELECT id, public_id FROM recordings WHERE id = $1 FOR UPDATE SKIP LOCKED`;
    let ids = this.run.captured.slice(-CANDIDATES);
    if (!ids.length) {
      ids = (await this.m.query(this.newest('id', '', CANDIDATES), [this.companyId, this.recordingKind()])).map((r: { id: string }) =>
        String(r.id),
      );
      if (ids.length <= KEEP) return null;
    }
    const row = await this.claimOne<{ id: string; public_id: string }>(ids, claim);
    if (!row) return null;
    await this.recordings.removeRecording(row.id);
    return { kind: 'recording_removed', subject: row.public_id, created: [] };
  }
}
