import { randomInt } from 'node:crypto';
import { ID_PREFIX } from '../common/ids/public-id';
import { RECORDING_COLLECTIONS } from '../recordings/recording-collections';
import {
  Audience,
  EVALUATION_STATUSES,
  EvaluationStatus,
  MediaType,
  MeetingType,
  QuestionType,
  RecordingKind,
  TeamRole,
  TRANSCRIPT_STATUSES,
  TRANSCRIPT_VARIANTS,
  TranscriptStatus,
  TranscriptVariant,
} from '../recordings/recording.vocabulary';
import { Ref, TenantFactory, token } from './tenant-factory';

export type { Ref } from './tenant-factory';

/** `original`/`enhanced`: completed with that variant as the best one; the others: not readable yet. */
export type TranscriptState = Exclude<TranscriptStatus, 'completed'> | TranscriptVariant;
export const TRANSCRIPT_STATES: readonly TranscriptState[] = [
  ...TRANSCRIPT_STATUSES.filter((s): s is Exclude<TranscriptStatus, 'completed'> => s !== 'completed'),
  ...[...TRANSCRIPT_VARIANTS].reverse(), // the original first
];
export const EVALUATION_STATES = ['none', ...EVALUATION_STATUSES] as const;
/** `none`: no evaluation row at all (reads as not started). */
export type EvaluationState = (typeof EVALUATION_STATES)[number];

export interface UserRef extends Ref {
  name: string;
  email: string;
}
export interface TemplateRef extends Ref {
  questions: Array<Ref & { text: string; type: QuestionType; position: number }>;
}

export interface Utterance {
  speaker: string | null;
  text: string;
  start_ms: number;
  end_ms: number;
}

export interface Participant {
  display_name: string;
  email?: string;
  phone?: string;
}

export interface RecordingOptions {
  owner: UserRef;
  title?: string;
  mediaType?: MediaType;
  /** Derived from `participants` when omitted; `internal` alone means no outside participant. */
  audience?: Audience;
  meetingAt?: Date;
  createdAt?: Date;
  durationSeconds?: number;
  noShow?: boolean;
  transcript?: TranscriptState;
  evaluation?: EvaluationState;
  /** The default template; every question gets an answer. */
  template?: TemplateRef;
  tags?: Ref[];
  competitors?: Ref[];
  accounts?: Ref[];
  /** Enablement with these users' speaking durations; undefined: no enablement. */
  enablement?: { speakers: UserRef[]; meetingType?: MeetingType | null; nextSteps?: string | null; othersSeconds?: number | null };
  skillScores?: Array<{ user: UserRef; skill: Ref; score: number }>;
  botHistory?: Array<{ code: string | null; subcode: string | null; occurred_at: string }>;
  /** External participants; one generic customer by default (none for an internal record). */
  participants?: Participant[];
  customerQuestions?: Array<{ question: string; category: string }>;
  /** The transcript's utterances (both variants); two short lines by default. */
  utterances?: Utterance[];
  /** Answers to the template's questions, by position; `Resposta <n>` by default; null: none yet (filled in later). */
  answers?: string[] | null;
}

/** What an evaluation in `status` holds: a score once completed, a justification once completed or failed. */
export function evaluationResult(
  status: EvaluationStatus,
  score = randomInt(0, 101),
): { score: number | null; justification: string | null } {
  return {
    score: status === 'completed' ? score : null,
    justification: status === 'completed' ? 'Boa condução da descoberta.' : status === 'failed' ? 'Áudio insuficiente.' : null,
  };
}

/**
 * Builds meetings, calls and everything they show, in every documented state, as the
 * schema owner. Used by the tests and by the seed commands.
 */
export class RecordingsFactory extends TenantFactory {
  async user(overrides: Partial<Pick<UserRef, 'name' | 'email'>> = {}): Promise<UserRef> {
    const name = overrides.name ?? `Vendedor ${token()}`;
    const email = overrides.email ?? `vendedor.${token()}@example.com`;
    const id = await this.insert('users', 'user', { name, email });
    return { ...id, name, email };
  }

  async team(name = `Time ${token()}`): Promise<Ref> {
    return this.insert('teams', 'team', { name });
  }

  async membership(user: Ref, team: Ref, role: TeamRole, isDefault: boolean): Promise<void> {
    await this.db.query('INSERT INTO team_memberships (company_id, user_id, team_id, role, is_default) VALUES ($1, $2, $3, $4, $5)', [
      this.companyId,
      user.id,
      team.id,
      role,
      isDefault,
    ]);
  }

  tag(name = `tag ${token()}`): Promise<Ref> {
    return this.insert('tags', 'tag', { name });
  }

  competitor(name = `Concorrente ${token()}`): Promise<Ref> {
    return this.insert('competitors', 'competitor', { name });
  }

  skill(name = `Skill ${token()}`): Promise<Ref> {
    return this.insert('skills', 'skill', { name });
  }

  account(domain = `cliente-${token()}.com.br`, cnpj: string | null = '12.345.678/0001-90'): Promise<Ref> {
    return this.insert('accounts', 'account', { domain, cnpj });
  }

  async template(questions: Array<{ text: string; type: QuestionType }>, name = `Roteiro ${token()}`): Promise<TemplateRef> {
    const template = await this.insert('templates', 'template', { name });
    const created: TemplateRef['questions'] = [];
    // Positions are 1-based and inserted in reverse, so that order never comes from insertion.
    for (const [index, q] of [...questions.entries()].reverse()) {
      const ref = await this.insert('template_questions', 'question', {
        template_id: template.id,
        text: q.text,
        type: q.type,
        position: index + 1,
      });
      created.unshift({ ...ref, text: q.text, type: q.type, position: index + 1 });
    }
    return { ...template, questions: created };
  }

  async recording(kind: RecordingKind, o: RecordingOptions): Promise<Ref> {
    const transcript = o.transcript ?? 'not_started';
    const completed = transcript === 'original' || transcript === 'enhanced';
    const meetingAt = o.meetingAt ?? new Date(Date.now() - randomInt(1, 90 * 86_400) * 1000);
    const participants =
      o.participants ??
      (o.audience === 'internal'
        ? []
        : kind === 'meeting'
          ? [{ display_name: 'Cliente Externo', email: `cliente.${token()}@cliente.com.br` }]
          : [{ display_name: 'Cliente Externo', phone: '+55 11 91234-5678' }]);
    // The database checks it too: external exactly when someone from outside took part.
    const audience = participants.length > 0 ? 'external' : 'internal';
    if (o.audience && o.audience !== audience)
      throw new Error(`an ${o.audience} record cannot list ${participants.length} outside participants`);
    const recording = await this.insert('recordings', RECORDING_COLLECTIONS[kind].idKind, {
      kind,
      title: o.title ?? `${kind === 'meeting' ? 'Reunião' : 'Ligação'} ${token()}`,
      media_type: o.mediaType ?? (kind === 'meeting' ? 'video' : 'audio'),
      audience,
      meeting_at: meetingAt,
      duration_seconds: o.durationSeconds ?? randomInt(60, 3600),
      no_show: o.noShow ?? false,
      owner_id: o.owner.id,
      template_id: o.template?.id ?? null,
      participants: JSON.stringify(participants.map((p) => ({ ...p, kind: 'external' }))),
      customer_questions: JSON.stringify(
        o.customerQuestions ?? [{ question: 'Qual é o prazo de implantação?', category: 'implementation' }],
      ),
      bot_history:
        kind === 'meeting'
          ? JSON.stringify(o.botHistory ?? [{ code: 'joined', subcode: null, occurred_at: meetingAt.toISOString() }])
          : null,
      transcript_status: completed ? 'completed' : transcript,
      ...(o.createdAt ? { created_at: o.createdAt, updated_at: o.createdAt } : {}),
    });
    const id = recording.id;
    if (completed) {
      await this.transcript(id, 'original', o.utterances ?? defaultUtterances(`original ${token()}`));
      if (transcript === 'enhanced') await this.transcript(id, 'enhanced', o.utterances ?? defaultUtterances(`enhanced ${token()}`));
    }
    const evaluation = o.evaluation ?? 'none';
    if (evaluation !== 'none') await this.evaluation(id, evaluation);
    for (const q of o.answers === null ? [] : (o.template?.questions ?? [])) {
      await this.answer(id, q, o.answers?.[q.position - 1] ?? `Resposta ${q.position}`);
    }
    await this.link('recording_tags', 'recording_id', id, 'tag_id', o.tags);
    await this.link('recording_competitors', 'recording_id', id, 'competitor_id', o.competitors);
    await this.link('recording_accounts', 'recording_id', id, 'account_id', o.accounts);
    if (o.enablement) {
      await this.db.query(
        'INSERT INTO recording_enablements (company_id, recording_id, next_steps, meeting_type, others_seconds) VALUES ($1, $2, $3, $4, $5)',
        [this.companyId, id, o.enablement.nextSteps ?? null, o.enablement.meetingType ?? null, o.enablement.othersSeconds ?? null],
      );
      for (const [i, speaker] of o.enablement.speakers.entries()) {
        await this.db.query(
          'INSERT INTO recording_speaking_durations (company_id, recording_id, user_id, duration_seconds) VALUES ($1, $2, $3, $4)',
          [this.companyId, id, speaker.id, 600 - i * 60],
        );
      }
    }
    for (const s of o.skillScores ?? []) {
      await this.db.query(
        'INSERT INTO recording_skill_scores (company_id, recording_id, user_id, skill_id, score, justification) VALUES ($1, $2, $3, $4, $5, $6)',
        [this.companyId, id, s.user.id, s.skill.id, s.score, null],
      );
    }
    return recording;
  }

  /**
   * `count` bare records (no relations) in one statement, created one second apart from
   * `from` (ties broken by id), for pagination and volume.
   */
  async bulk(kind: RecordingKind, count: number, owner: Ref, from: Date, options: { sameCreatedAt?: boolean } = {}): Promise<void> {
    const prefix = ID_PREFIX[RECORDING_COLLECTIONS[kind].idKind];
    await this.db.query(
      `INSERT INTO recordings (public_id, company_id, kind, title, media_type, audience, meeting_at, duration_seconds, owner_id, participants,
         bot_history, transcript_status, created_at, updated_at)
       SELECT app_public_id($1), $2, $3, 'Registro ' || g, CASE WHEN g % 2 = 0 THEN 'video' ELSE 'audio' END,
         CASE WHEN g % 3 = 0 THEN 'internal' ELSE 'external' END, $4::timestamptz + g * interval '1 hour', 600, $5,
         CASE WHEN g % 3 = 0 THEN '[]'::jsonb ELSE '[{"display_name": "Cliente", "email": "cliente@cliente.com.br", "kind": "external"}]'::jsonb END,
         CASE WHEN $3 = 'meeting' THEN '[]'::jsonb END, CASE WHEN g % 4 = 0 THEN 'completed' ELSE 'processing' END,
         $4::timestamptz + CASE WHEN $7 THEN interval '0' ELSE g * interval '1 second' END, $4::timestamptz
       FROM generate_series(1, $6) g`,
      [prefix, this.companyId, kind, from, owner.id, count, options.sameCreatedAt ?? false],
    );
    // Keep the invariant: a completed transcript has a readable variant.
    await this.db.query(
      `INSERT INTO transcripts (company_id, recording_id, variant, utterances)
       SELECT r.company_id, r.id, 'original', '[]' FROM recordings r
       WHERE r.company_id = $1 AND r.transcript_status = 'completed'
         AND NOT EXISTS (SELECT 1 FROM transcripts t WHERE t.recording_id = r.id)`,
      [this.companyId],
    );
  }

  /** A transcript variant of a record (its `transcript_status` is the caller's: `completed` once a variant is readable). */
  async transcript(recordingId: string, variant: TranscriptVariant, utterances: Utterance[]): Promise<void> {
    await this.db.query('INSERT INTO transcripts (company_id, recording_id, variant, utterances) VALUES ($1, $2, $3, $4)', [
      this.companyId,
      recordingId,
      variant,
      JSON.stringify(utterances),
    ]);
  }
  /** Where a record's transcript stands; `completed` needs a variant first (transcript()). */
  async transcriptStatus(recordingId: string, status: TranscriptStatus): Promise<void> {
    await this.db.query('UPDATE recordings SET transcript_status = $2 WHERE id = $1', [recordingId, status]);
  }

  /** A record's overall evaluation, started in `status`. */
  evaluation(recordingId: string, status: EvaluationStatus, score?: number): Promise<Ref> {
    return this.insert('recording_evaluations', 'evaluation', { recording_id: recordingId, status, ...evaluationResult(status, score) });
  }

  /** The evaluation moves on to `status` (with what that status holds). */
  async evaluationStatus(recordingId: string, status: EvaluationStatus, score?: number): Promise<void> {
    const { score: value, justification } = evaluationResult(status, score);
    await this.db.query(
      'UPDATE recording_evaluations SET status = $2, score = $3, justification = $4, updated_at = now() WHERE recording_id = $1',
      [recordingId, status, value, justification],
    );
  }

  /** An answer to one question of the record's template. */
  answer(recordingId: string, question: Pick<Ref, 'id'>, answer: string): Promise<Ref> {
    return this.insert('recording_answers', 'answer', { recording_id: recordingId, question_id: question.id, answer });
  }

  /** A record removed from the capture system, with everything it shows (its relations cascade). */
  async removeRecording(recordingId: string): Promise<void> {
    await this.db.query('DELETE FROM recordings WHERE id = $1', [recordingId]);
  }
}

function defaultUtterances(text: string): Utterance[] {
  return [
    { speaker: 'Vendedor', text: `Olá! (${text})`, start_ms: 0, end_ms: 1500 },
    { speaker: null, text: 'Bom dia.', start_ms: 1600, end_ms: 2400 },
  ];
}
