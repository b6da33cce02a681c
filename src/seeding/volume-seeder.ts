import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { CompaniesService } from '../companies/companies.service';
import { ID_PREFIX } from '../common/ids/public-id';
import { RECORDING_COLLECTIONS } from '../recordings/recording-collections';
import { EvaluationStatus, MeetingType, QUESTION_TYPES, RecordingKind, TranscriptStatus } from '../recordings/recording.vocabulary';
import { ConversationsFactory } from './conversations.factory';
import { RecordingsFactory, UserRef } from './recordings.factory';
import { Ref } from './tenant-factory';

export interface VolumeRequest {
  /** Public id of an existing company. */
  company: string;
  meetings: number;
  calls: number;
  emails: number;
  chats: number;
  /** Messages per e-mail and per chat conversation. */
  messages: number;
}

export interface VolumeResult {
  company_id: string;
  meetings: number;
  calls: number;
  emails: number;
  chats: number;
  messages: number;
  seconds: number;
}

/** Told after every batch: what is being seeded, how many of it are done, out of how many. */
export type Progress = (what: string, done: number, total: number) => void;

/** Rows of the main table per statement: big enough for throughput, small enough to report progress and bound memory. */
const BATCH = 25_000;

/** Transcript statuses by row number: two records in five have a readable transcript. */
const TRANSCRIPT_SPREAD: TranscriptStatus[] = ['completed', 'completed', 'processing', 'not_started', 'failed'];
/** Evaluation statuses by row number, of the three records in four that have an evaluation. */
const EVALUATION_SPREAD: EvaluationStatus[] = ['completed', 'completed', 'processing', 'failed', 'not_started'];
/** Meeting types of the bulk enablements. */
const MEETING_TYPE_SPREAD: MeetingType[] = ['qualification', 'negotiation', 'proposal', 'closing'];

/** The transcript every bulk record with a readable one carries: a short realistic exchange. */
const UTTERANCES = JSON.stringify(
  [
    'Bom dia, obrigado pelo tempo hoje.',
    'Bom dia! Vamos lá, quero entender como funciona a integração.',
    'A integração com o CRM leva em média duas semanas.',
    'E o preço por licença, como fica no plano anual?',
    'Consigo enviar a proposta ainda hoje com o desconto anual.',
    'Perfeito, aguardo.',
  ].map((text, i) => ({ speaker: i % 2 ? 'Cliente' : 'Vendedor', text, start_ms: i * 4000, end_ms: i * 4000 + 3500 })),
);

/**
 * `seed:volume`: bulk data for an existing company, generated inside PostgreSQL with
 * `generate_series` in batches of multi-row `INSERT … SELECT` (one statement per batch and
 * table, each batch its own transaction), never one ORM save per row. States are spread by
 * modulo over the row number, so every filter and state has its share. Owners take turns by
 * blocks of five rows (a plain modulo of 20 would share its factors with the states' moduli
 * and give some owners only internal or only audio records), and every row draws its own
 * instant (in a subquery: an uncorrelated LATERAL would be evaluated once per statement).
 */
@Injectable()
export class VolumeSeeder {
  constructor(
    private readonly db: DataSource,
    private readonly companies: CompaniesService,
  ) {}

  async seed(request: VolumeRequest, progress: Progress = () => undefined): Promise<VolumeResult> {
    const started = Date.now();
    const company = await this.companies.get(request.company);
    const pool = await this.db.transaction((m) => referencePool(m, company.id));
    for (const kind of ['meeting', 'call'] as const) {
      const total = kind === 'meeting' ? request.meetings : request.calls;
      for (let done = 0; done < total;) {
        const size = Math.min(BATCH, total - done);
        await this.db.transaction((m) => recordingsBatch(m, company.id, kind, size, pool));
        done += size;
        progress(`${kind}s`, done, total);
      }
    }
    for (const channel of ['email', 'chat'] as const) {
      const total = channel === 'email' ? request.emails : request.chats;
      // Keep each statement near BATCH messages whatever the conversation length.
      const perBatch = Math.max(1, Math.floor(BATCH / Math.max(1, request.messages)));
      for (let done = 0; done < total;) {
        const size = Math.min(perBatch, total - done);
        await this.db.transaction((m) => conversationsBatch(m, company.id, channel, size, request.messages, pool));
        done += size;
        progress(channel === 'email' ? 'email conversations' : 'chats', done, total);
      }
    }
    // The change log just grew by an entry per object: statistics now, not when autovacuum gets to
    // it (the feed's pages are planned from them; a sample, so it costs about the same at any size).
    await this.db.query('ANALYZE change_log');
    return {
      company_id: company.publicId,
      meetings: request.meetings,
      calls: request.calls,
      emails: request.emails,
      chats: request.chats,
      messages: (request.emails + request.chats) * request.messages,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  }
}

interface ReferencePool {
  owners: string[];
  mailbox: { id: string; address: string };
  template: { id: string; questions: string[] };
  tags: string[];
  accounts: string[];
  competitors: string[];
  skills: string[];
}

/** The users, template, tags, accounts and mailbox bulk rows point to, made once per run. */
async function referencePool(m: EntityManager, companyId: string): Promise<ReferencePool> {
  const people = new RecordingsFactory(m, companyId);
  const owners: UserRef[] = [];
  for (let i = 0; i < 20; i++) owners.push(await people.user());
  const team = await people.team('Vendas');
  for (const owner of owners) await people.membership(owner, team, 'participant', true);
  const template = await people.template(QUESTION_TYPES.map((type, i) => ({ text: `Pergunta ${i + 1}`, type })));
  const ids = (refs: Ref[]) => refs.map((r) => r.id);
  const many = async (n: number, make: () => Promise<Ref>) => {
    const refs: Ref[] = [];
    for (let i = 0; i < n; i++) refs.push(await make());
    return refs;
  };
  const mailbox = await new ConversationsFactory(m, companyId).mailbox(owners[0]);
  return {
    owners: owners.map((o) => o.id),
    mailbox,
    template: { id: template.id, questions: template.questions.map((q) => q.id) },
    tags: ids(await many(8, () => people.tag())),
    accounts: ids(await many(50, () => people.account())),
    competitors: ids(await many(4, () => people.competitor())),
    skills: ids(await many(3, () => people.skill())),
  };
}

/** `size` recordings of `kind` with their relations, in one statement. */
async function recordingsBatch(m: EntityManager, companyId: string, kind: RecordingKind, size: number, pool: ReferencePool): Promise<void> {
  await m.query(
    `WITH r AS (
       INSERT INTO recordings (public_id, company_id, kind, title, media_type, audience, meeting_at, duration_seconds, no_show, owner_id,
         template_id, participants, customer_questions, bot_history, transcript_status, created_at, updated_at)
       SELECT app_public_id($1), $2, $3,
         CASE WHEN $3 = 'meeting' THEN 'Reunião ' ELSE 'Ligação ' END || g,
         CASE WHEN $3 = 'call' OR g % 4 = 0 THEN 'audio' ELSE 'video' END,
         CASE WHEN g % 5 = 0 THEN 'internal' ELSE 'external' END,
         at, 300 + g % 3300, g % 23 = 0, ($4::bigint[])[1 + (g / 5) % cardinality($4::bigint[])],
         CASE WHEN g % 3 = 0 THEN NULL ELSE $5::bigint END,
         CASE WHEN g % 5 = 0 THEN '[]'::jsonb
           WHEN $3 = 'meeting'
           THEN jsonb_build_array(jsonb_build_object('display_name', 'Cliente ' || g, 'email', 'cliente' || g || '@cliente.com.br', 'kind', 'external'))
           ELSE jsonb_build_array(jsonb_build_object('display_name', 'Cliente ' || g, 'phone', '+55 11 9' || lpad((g % 100000000)::text, 8, '0'), 'kind', 'external')) END,
         '[{"question": "Qual é o prazo de implantação?", "category": "implementation"}]'::jsonb,
         CASE WHEN $3 = 'meeting' THEN jsonb_build_array(jsonb_build_object('code', 'joining_call', 'subcode', NULL, 'occurred_at', at)) END,
         ($13::text[])[1 + g % cardinality($13::text[])],
         at + interval '1 hour', at + interval '1 hour'
       FROM (SELECT g, now() - random() * interval '730 days' AS at FROM generate_series(1, $6::int) g) t
       RETURNING id, template_id, transcript_status, owner_id
     ), numbered AS (
       SELECT r.*, row_number() OVER () AS n FROM r
     ), transcripts AS (
       INSERT INTO transcripts (company_id, recording_id, variant, utterances)
       SELECT $2, id, v.variant, $7::jsonb FROM numbered,
         LATERAL (SELECT 'original' AS variant UNION ALL SELECT 'enhanced' WHERE n % 2 = 0) v
       WHERE transcript_status = 'completed'
     ), evaluations AS (
       INSERT INTO recording_evaluations (public_id, company_id, recording_id, status, score, justification)
       SELECT app_public_id($14), $2, id, s.status,
         CASE WHEN s.status = 'completed' THEN (n * 37 % 101)::int END,
         CASE WHEN s.status = 'completed' THEN 'Boa condução da descoberta.' END
       FROM numbered, LATERAL (SELECT ($15::text[])[1 + n % cardinality($15::text[])] AS status) s
       WHERE n % 4 <> 0
     ), answers AS (
       INSERT INTO recording_answers (public_id, company_id, recording_id, question_id, answer)
       SELECT app_public_id($16), $2, id, q, 'Resposta'
       FROM numbered, unnest($8::bigint[]) q WHERE template_id IS NOT NULL
     ), tags AS (
       INSERT INTO recording_tags (company_id, recording_id, tag_id)
       SELECT $2, id, ($9::bigint[])[1 + n % cardinality($9::bigint[])] FROM numbered WHERE n % 2 = 0
     ), accounts AS (
       INSERT INTO recording_accounts (company_id, recording_id, account_id)
       SELECT $2, id, ($10::bigint[])[1 + n % cardinality($10::bigint[])] FROM numbered
     ), competitors AS (
       INSERT INTO recording_competitors (company_id, recording_id, competitor_id)
       SELECT $2, id, ($11::bigint[])[1 + n % cardinality($11::bigint[])] FROM numbered WHERE n % 3 = 0
     ), enablements AS (
       INSERT INTO recording_enablements (company_id, recording_id, next_steps, meeting_type, others_seconds)
       SELECT $2, id, 'Enviar proposta.', ($17::text[])[1 + n % cardinality($17::text[])], 120
       FROM numbered WHERE n % 4 = 1
     ), speaking AS (
       INSERT INTO recording_speaking_durations (company_id, recording_id, user_id, duration_seconds)
       SELECT $2, id, owner_id, 600 FROM numbered WHERE n % 4 = 1
     )
     INSERT INTO recording_skill_scores (company_id, recording_id, user_id, skill_id, score)
     SELECT $2, id, owner_id, ($12::bigint[])[1 + n % cardinality($12::bigint[])], (n * 13 % 101)::int FROM numbered WHERE n % 4 = 2`,
    [
      ID_PREFIX[RECORDING_COLLECTIONS[kind].idKind],
      companyId,
      kind,
      pool.owners,
      pool.template.id,
      size,
      UTTERANCES,
      pool.template.questions,
      pool.tags,
      pool.accounts,
      pool.competitors,
      pool.skills,
      TRANSCRIPT_SPREAD,
      ID_PREFIX.evaluation,
      EVALUATION_SPREAD,
      ID_PREFIX.answer,
      MEETING_TYPE_SPREAD,
    ],
  );
}

/** `size` conversations of `channel`, each with `messages` messages, in one statement (the triggers derive their activity). */
async function conversationsBatch(
  m: EntityManager,
  companyId: string,
  channel: 'email' | 'chat',
  size: number,
  messages: number,
  pool: ReferencePool,
): Promise<void> {
  const sql =
    channel === 'email'
      ? `WITH c AS (
           INSERT INTO email_conversations (public_id, company_id, thread_key, subject, first_message_at, last_message_at, last_message_direction)
           SELECT app_public_id($7), $1,
             md5(random()::text || clock_timestamp()::text || g::text) || '@volume', 'Proposta comercial ' || g, at, at, 'outbound'
           FROM (SELECT g, now() - random() * interval '365 days' AS at FROM generate_series(1, $2::int) g) t
           RETURNING id, first_message_at AS at, subject
         ), mailboxes AS (
           INSERT INTO email_conversation_mailboxes (company_id, conversation_id, mailbox_id) SELECT $1, id, $4 FROM c
         ), accounts AS (
           INSERT INTO email_conversation_accounts (company_id, conversation_id, account_id)
           SELECT $1, id, ($6::bigint[])[1 + (id % cardinality($6::bigint[]))::int] FROM c
         )
         INSERT INTO email_messages (public_id, company_id, conversation_id, message_id, sent_at, direction, subject, snippet, body_text,
           sender, recipients_to, attachments)
         SELECT app_public_id($8), $1, c.id,
           md5(random()::text || clock_timestamp()::text || c.id::text || k::text) || '@volume', c.at + k * interval '17 minutes',
           CASE WHEN k % 2 = 0 THEN 'outbound' ELSE 'inbound' END, CASE WHEN k = 0 THEN c.subject ELSE 'Re: ' || c.subject END,
           'Olá, segue a proposta conforme conversamos.', 'Olá,\n\nSegue a proposta conforme conversamos.\n\nAbraços',
           CASE WHEN k % 2 = 0 THEN jsonb_build_object('address', $5::text, 'name', NULL, 'internal', true)
             ELSE jsonb_build_object('address', 'contato' || c.id || '@cliente.com.br', 'name', 'Contato', 'internal', false) END,
           CASE WHEN k % 2 = 0 THEN jsonb_build_array(jsonb_build_object('address', 'contato' || c.id || '@cliente.com.br', 'name', 'Contato', 'internal', false))
             ELSE jsonb_build_array(jsonb_build_object('address', $5::text, 'name', NULL, 'internal', true)) END,
           CASE WHEN k = 0 AND c.id % 3 = 0 THEN '[{"filename": "Proposta.pdf", "mime_type": "application/pdf", "size_bytes": 248133}]'::jsonb ELSE '[]'::jsonb END
         FROM c, generate_series(0, $3::int - 1) k`
      : `WITH c AS (
           INSERT INTO chat_conversations (public_id, company_id, source, chat_key, is_group, contact_phone, contact_name, seller_id, seller_phone,
             first_message_at, last_message_at, last_message_direction)
           SELECT app_public_id($6), $1, 'chat_web',
             md5(random()::text || clock_timestamp()::text || g::text), false, '+55 11 9' || lpad((g % 100000000)::text, 8, '0'),
             'Contato ' || g, ($5::bigint[])[1 + g % cardinality($5::bigint[])], '+55 11 90000-0000', at, at, 'inbound'
           FROM (SELECT g, now() - random() * interval '365 days' AS at FROM generate_series(1, $2::int) g) t
           RETURNING id, first_message_at AS at, contact_phone, contact_name
         ), accounts AS (
           INSERT INTO chat_conversation_accounts (company_id, conversation_id, account_id)
           SELECT $1, id, ($4::bigint[])[1 + (id % cardinality($4::bigint[]))::int] FROM c
         )
         INSERT INTO chat_messages (public_id, company_id, conversation_id, external_id, sent_at, direction, author_phone, author_name, type, text)
         SELECT app_public_id($7), $1, c.id, md5(random()::text || c.id::text || k::text),
           c.at + k * interval '3 minutes', CASE WHEN k % 2 = 0 THEN 'inbound' ELSE 'outbound' END,
           CASE WHEN k % 2 = 0 THEN c.contact_phone ELSE '+55 11 90000-0000' END,
           CASE WHEN k % 2 = 0 THEN c.contact_name ELSE 'Vendedor' END, 'text', 'Mensagem ' || (k + 1)
         FROM c, generate_series(0, $3::int - 1) k`;
  const params =
    channel === 'email'
      ? [
          companyId,
          size,
          messages,
          pool.mailbox.id,
          pool.mailbox.address,
          pool.accounts,
          ID_PREFIX.emailConversation,
          ID_PREFIX.emailMessage,
        ]
      : [companyId, size, messages, pool.accounts, pool.owners, ID_PREFIX.chatConversation, ID_PREFIX.chatMessage];
  await m.query(sql, params);
}
