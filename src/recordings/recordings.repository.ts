import { Injectable } from '@nestjs/common';
import { TimeIdPosition } from '../common/cursors/keyset-page';
import { AccountDto } from '../common/openapi/resources.dto';
import { accountsJson, iso, limitClause, micros, pageOf, Params, userJson } from '../database/sql';
import { TenantTransaction } from '../database/tenant-transaction';
import { ListRecordingsQuery } from './list-recordings.query';
import { IdNameDto, OwnerDto, QuestionDto, SkillScoreDto, SpeakingUserDto, TemplateAnswerDto } from './recording.dto';
import {
  Audience,
  EvaluationStatus,
  MediaType,
  MeetingType,
  ParticipantKind,
  RecordingKind,
  RecordingStatus,
  TranscriptStatus,
  TranscriptVariant,
} from './recording.vocabulary';

/** A participant as the capture system stored it: the documented fields among others, each maybe absent. */
export type StoredParticipant = Partial<Record<'display_name' | 'email' | 'phone', unknown>> & { kind?: ParticipantKind };

/**
 * One record with every relation it shows, as the queries below return it; the relations the
 * statement builds in their wire shape are typed by their DTOs.
 */
export interface RecordingRow {
  id: string;
  created_micros: string;
  public_id: string;
  kind: RecordingKind;
  title: string;
  status: RecordingStatus;
  media_type: MediaType;
  audience: Audience;
  meeting_at: string;
  duration_seconds: number;
  no_show: boolean;
  participants: StoredParticipant[];
  customer_questions: Array<{ question: string; category: string }>;
  bot_history: Array<{ code: string | null; subcode: string | null; occurred_at: string }> | null;
  transcript_status: TranscriptStatus;
  created_at: string;
  updated_at: string;
  owner: OwnerDto;
  template: { id: string; name: string } | null;
  template_answers: TemplateAnswerDto[];
  tags: IdNameDto[];
  competitors: IdNameDto[];
  accounts: AccountDto[];
  evaluation_status: EvaluationStatus | null;
  evaluation_justification: string | null;
  enablement: { next_steps: string | null; meeting_type: MeetingType | null; others_seconds: number | null } | null;
  speaking_durations: SpeakingUserDto[];
  skill_scores: SkillScoreDto[];
}

export interface EvaluationRow {
  public_id: string;
  evaluation_id: string | null;
  status: EvaluationStatus | null;
  score: number | null;
  justification: string | null;
  created_at: string | null;
  updated_at: string | null;
}

export interface AnswersRow {
  answers: Array<{
    id: string;
    question: QuestionDto;
    answer: string;
    updated_at: string;
  }>;
}

export interface TranscriptRow {
  public_id: string;
  transcript_status: TranscriptStatus;
  variant: TranscriptVariant | null;
  utterances: Array<{ speaker: string | null; text: string; start_ms: number; end_ms: number }> | null;
  created_at: string | null;
  updated_at: string | null;
}

/**
 * A meeting's bot history as stored (a JSON array, in the capture system's order), each instant
 * written again by the one serializer of date-times (`iso`): whatever precision a writer
 * stored, the answer has six fractional digits.
 */
const BOT_HISTORY = `CASE WHEN r.bot_history IS NULL THEN NULL ELSE (
    SELECT coalesce(json_agg(json_build_object('code', h.entry->'code', 'subcode', h.entry->'subcode',
             'occurred_at', ${iso("(h.entry->>'occurred_at')::timestamptz")}) ORDER BY h.n), '[]')
      FROM jsonb_array_elements(r.bot_history) WITH ORDINALITY AS h(entry, n)) END`;

/**
 * The record and all of its relations in one statement: one-to-one relations are joins,
 * one-to-many relations are correlated `json_agg` subqueries, each an index lookup by
 * `recording_id`. A page of 1 and a page of 100 cost the same number of queries: one.
 */
const RECORDING_SELECT = `
  SELECT r.id, ${micros('r.created_at')} AS created_micros,
    r.public_id, r.kind, r.title, r.status, r.media_type, r.audience, ${iso('r.meeting_at')} AS meeting_at,
    r.duration_seconds, r.no_show, r.participants, r.customer_questions, r.transcript_status,
    ${BOT_HISTORY} AS bot_history,
    ${iso('r.created_at')} AS created_at, ${iso('r.updated_at')} AS updated_at,
    json_build_object('id', u.public_id, 'name', u.name, 'email', u.email, 'team', team.value) AS owner,
    CASE WHEN tpl.id IS NULL THEN NULL ELSE json_build_object('id', tpl.public_id, 'name', tpl.name) END AS template,
    (SELECT coalesce(json_agg(json_build_object('field', q.public_id, 'question', q.text, 'answer', a.answer) ORDER BY q.position), '[]')
       FROM recording_answers a JOIN template_questions q ON q.id = a.question_id
       WHERE a.recording_id = r.id AND q.template_id = r.template_id) AS template_answers,
    (SELECT coalesce(json_agg(json_build_object('id', t.public_id, 'name', t.name) ORDER BY t.name, t.id), '[]')
       FROM recording_tags rt JOIN tags t ON t.id = rt.tag_id WHERE rt.recording_id = r.id) AS tags,
    (SELECT coalesce(json_agg(json_build_object('id', c.public_id, 'name', c.name) ORDER BY c.name, c.id), '[]')
       FROM recording_competitors rc JOIN competitors c ON c.id = rc.competitor_id WHERE rc.recording_id = r.id) AS competitors,
    ${accountsJson('recording_accounts', 'recording_id', 'r.id')} AS accounts,
    ev.status AS evaluation_status, ev.justification AS evaluation_justification,
    CASE WHEN en.recording_id IS NULL THEN NULL
      ELSE json_build_object('next_steps', en.next_steps, 'meeting_type', en.meeting_type, 'others_seconds', en.others_seconds) END AS enablement,
    (SELECT coalesce(json_agg(json_build_object('user', ${userJson('su')}, 'duration_seconds', sd.duration_seconds)
         ORDER BY sd.duration_seconds DESC, su.id), '[]')
       FROM recording_speaking_durations sd JOIN users su ON su.id = sd.user_id WHERE sd.recording_id = r.id) AS speaking_durations,
    (SELECT coalesce(json_agg(json_build_object('user', ${userJson('ku')}, 'skill', json_build_object('id', sk.public_id, 'name', sk.name),
         'score', ss.score, 'justification', ss.justification) ORDER BY ku.id, sk.name, sk.id), '[]')
       FROM recording_skill_scores ss JOIN users ku ON ku.id = ss.user_id JOIN skills sk ON sk.id = ss.skill_id
       WHERE ss.recording_id = r.id) AS skill_scores
  FROM recordings r
  JOIN users u ON u.id = r.owner_id
  LEFT JOIN LATERAL (
    SELECT json_build_object('id', tm.public_id, 'name', tm.name, 'role', m.role, 'is_default', m.is_default) AS value
    FROM team_memberships m JOIN teams tm ON tm.id = m.team_id
    WHERE m.user_id = u.id ORDER BY m.is_default DESC, m.created_at, m.team_id LIMIT 1
  ) team ON true
  LEFT JOIN templates tpl ON tpl.id = r.template_id
  LEFT JOIN recording_evaluations ev ON ev.recording_id = r.id
  LEFT JOIN recording_enablements en ON en.recording_id = r.id`;

/**
 * Reads of meetings and calls, inside the request's tenant transaction. Every statement
 * filters by the company itself (row-level security is the second wall) and by the kind, so
 * a meeting id never answers on the calls routes.
 */
@Injectable()
export class RecordingsRepository {
  constructor(private readonly tenant: TenantTransaction) {}

  /**
   * `take` records after `after` in `(created_at, id)` order, matching the filters, in one
   * statement: an index ending in `(created_at, id)` is walked in order and stops after `take`
   * matches, and the relations are read for those rows only. With `owner_email` the page's ids
   * come first: each matching user's records are walked in order through
   * `(company_id, kind, owner_id, created_at, id)`, at most `take` per user, then the relations
   * are read for the page; so the cost does not grow with how many records the owner has (a
   * semi-join on the owner made PostgreSQL sort all of them, with their relations, first).
   */
  async listPage(
    companyId: string,
    kind: RecordingKind,
    query: ListRecordingsQuery,
    after: TimeIdPosition | null,
    take: number,
  ): Promise<RecordingRow[]> {
    const p = new Params();
    const company = p.add(companyId);
    const where = [`r.company_id = ${company}`, `r.kind = ${p.add(kind)}`];
    if (query.created_after) where.push(`r.created_at > ${p.add(query.created_after.iso)}::timestamptz`);
    if (query.created_before) where.push(`r.created_at < ${p.add(query.created_before.iso)}::timestamptz`);
    if (query.meeting_after) where.push(`r.meeting_at > ${p.add(query.meeting_after.iso)}::timestamptz`);
    if (query.meeting_before) where.push(`r.meeting_at < ${p.add(query.meeting_before.iso)}::timestamptz`);
    if (query.type) where.push(`r.media_type = ${p.add(query.type)}`);
    if (query.audience) where.push(`r.audience = ${p.add(query.audience)}`);
    if (query.has_transcript !== undefined) where.push(`(r.transcript_status = 'completed') = ${p.add(query.has_transcript)}`);
    if (after) where.push(p.after('r.created_at', 'r.id', after));
    const limit = limitClause(take);
    if (!query.owner_email) {
      const rows = await this.tenant.query<RecordingRow>(
        `${RECORDING_SELECT} WHERE ${where.join(' AND ')} ORDER BY r.created_at, r.id ${limit}`,
        p.values,
      );
      return pageOf(rows, take);
    }
    // The per-user LIMIT stays a parameter on purpose: a generic plan then expects to read a
    // few rows of each user and walks the owner index in order; with the literal page size it
    // estimated that fewer rows than a page match, and read and sorted all of the owner's.
    const ids = `SELECT o.id FROM users ou
      CROSS JOIN LATERAL (
        SELECT r.id, r.created_at FROM recordings r WHERE ${where.join(' AND ')} AND r.owner_id = ou.id
        ORDER BY r.created_at, r.id LIMIT ${p.add(take)}
      ) o
      WHERE ou.company_id = ${company} AND lower(ou.email) = ${p.add(query.owner_email)}
      ORDER BY o.created_at, o.id ${limit}`;
    const sql = `${RECORDING_SELECT} WHERE r.company_id = ${company} AND r.id IN (${ids}) ORDER BY r.created_at, r.id`;
    return pageOf(await this.tenant.query<RecordingRow>(sql, p.values), take);
  }

  async findOne(companyId: string, kind: RecordingKind, publicId: string): Promise<RecordingRow | null> {
    const [row] = await this.tenant.query<RecordingRow>(
      `${RECORDING_SELECT} WHERE r.company_id = $1 AND r.kind = $2 AND r.public_id = $3`,
      [companyId, kind, publicId],
    );
    return row ?? null;
  }

  async findEvaluation(companyId: string, kind: RecordingKind, publicId: string): Promise<EvaluationRow | null> {
    const [row] = await this.tenant.query<EvaluationRow>(
      `SELECT r.public_id, ev.public_id AS evaluation_id, ev.status, ev.score, ev.justification,
         ${iso('ev.created_at')} AS created_at, ${iso('ev.updated_at')} AS updated_at
       FROM recordings r LEFT JOIN recording_evaluations ev ON ev.recording_id = r.id
       WHERE r.company_id = $1 AND r.kind = $2 AND r.public_id = $3`,
      [companyId, kind, publicId],
    );
    return row ?? null;
  }

  /** The answers to the questions of the record's default template, in question order. */
  async findAnswers(companyId: string, kind: RecordingKind, publicId: string): Promise<AnswersRow | null> {
    const [row] = await this.tenant.query<AnswersRow>(
      `SELECT (SELECT coalesce(json_agg(json_build_object(
             'id', a.public_id,
             'question', json_build_object('id', q.public_id, 'text', q.text, 'type', q.type, 'order', q.position),
             'answer', a.answer, 'updated_at', ${iso('a.updated_at')}) ORDER BY q.position), '[]')
           FROM template_questions q JOIN recording_answers a ON a.question_id = q.id AND a.recording_id = r.id
           WHERE q.template_id = r.template_id) AS answers
       FROM recordings r WHERE r.company_id = $1 AND r.kind = $2 AND r.public_id = $3`,
      [companyId, kind, publicId],
    );
    return row ?? null;
  }

  /** The transcript to show: the enhanced variant when there is one, else the original. */
  async findTranscript(companyId: string, kind: RecordingKind, publicId: string): Promise<TranscriptRow | null> {
    const [row] = await this.tenant.query<TranscriptRow>(
      `SELECT r.public_id, r.transcript_status, t.variant, t.utterances, ${iso('t.created_at')} AS created_at, ${iso('t.updated_at')} AS updated_at
       FROM recordings r
       LEFT JOIN LATERAL (
         SELECT * FROM transcripts t WHERE t.recording_id = r.id ORDER BY t.variant = 'enhanced' DESC LIMIT 1
       ) t ON r.transcript_status = 'completed'
       WHERE r.company_id = $1 AND r.kind = $2 AND r.public_id = $3`,
      [companyId, kind, publicId],
    );
    return row ?? null;
  }
}
