import { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import fc from 'fast-check';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { CHAT_CHANNEL } from '../../src/chat/chat-channel';
import { mintId } from '../../src/common/ids/public-id';
import { AppConfig } from '../../src/config/app-config';
import { DatabaseUrls } from '../../src/config/database-urls';
import { DATA_SCOPES } from '../../src/contract/scopes';
import { OwnerPool } from '../../src/database/owner-pool';
import { EMAIL_CHANNEL } from '../../src/emails/email-channel';
import { Metrics } from '../../src/metrics/metrics';
import { conversationDocumentRefresher } from '../../src/read-model/conversation-documents';
import { ReadModels } from '../../src/read-model/read-models';
import { recordingDocumentRefresher } from '../../src/read-model/recording-documents';
import { ConversationsFactory } from '../../src/seeding/conversations.factory';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { installCaptureUnderTest } from '../support/capture-under-test';
import { createClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { FeedReader } from '../support/feed';
import { applyEntries, differences, fullRead, Objects, WriterConnection, withDeadline } from '../support/interleavings';
import { createTestApp, ownerDataSource } from '../support/test-app';

/**
 * The machine that interleaves: fast-check writes small histories of concurrent transactions
 * over a tiny company (2-3 writers, each on a connection of its own, READ COMMITTED, 1-3
 * operations a transaction, committed or rolled back), and an interleaving of their steps with
 * the read model's refresher and an integrator polling the change feed at random moments.
 * Statements really block on row locks: a statement is issued without waiting for it, and the
 * writer takes no further step until it settles (a lock wait is seen in pg_stat_activity).
 *
 * Once every transaction has ended, after a last refresh and a last poll:
 * (a) every stored document is its live rendering: every route is read (served from the stored
 *     documents), the company's documents are emptied, every route is read again (rendered
 *     live), and the two reads must be equal;
 * (b) the copy the integrator built only from what it fetched when entries appeared equals a
 *     full read of every route.
 *
 * CAPTURE_SQL=<an older capture.sql> runs the histories against that capture (to see it fail).
 * CAPTURE_HISTORIES=N runs N histories (a soak); CAPTURE_SEED and CAPTURE_PATH replay a failure
 * fast-check reported. A failure prints the shrunk history as planned (the counterexample) and
 * as it ran (which statements blocked, what rolled back, what the feed said).
 */

const HISTORIES = Number(process.env.CAPTURE_HISTORIES ?? 200);
const PROFILE = process.env.CAPTURE_PROFILE === '1';
const replay = () => (process.env.CAPTURE_SEED ? { seed: Number(process.env.CAPTURE_SEED), path: process.env.CAPTURE_PATH } : {});

/** Deadlines of the waits on real conditions, sized for a machine twice as slow at its busiest. */
const SETTLE_OR_WAIT_MS = 10_000;
const DEADLOCK_MS = 20_000;
const REFRESH_MS = 30_000;
const DEADLOCK_TIMEOUT = '100ms';

/** Errors that end a transaction as a capture system would see it: retried (here: rolled back). */
const ROLLS_BACK: Record<string, string> = {
  '40P01': 'deadlock',
  '40001': 'serialization failure',
  '23503': 'foreign key violation (target gone)',
  '23505': 'unique violation (a concurrent twin won)',
};

// ---------------------------------------------------------------------------------------------
// The tiny company and its pools of targets.

/** Pools of row ids, by the letter a history names them with (U0, U1, …, in creation order). */
type PoolName = 'U' | 'T' | 'P' | 'Q' | 'G' | 'C' | 'S' | 'A' | 'M' | 'R' | 'E' | 'EM' | 'H' | 'HM';
type Pools = Record<PoolName, string[]>;

async function seedCompany(db: DataSource) {
  const company = await createCompany(db);
  const people = new RecordingsFactory(db, company.id);
  const talk = new ConversationsFactory(db, company.id);
  const tag = company.publicId.slice(4, 12).toLowerCase();
  const u = [
    await people.user({ name: 'Ana', email: `ana.${tag}@empresa.com.br` }),
    await people.user({ name: 'Bruno', email: `bruno.${tag}@empresa.com.br` }),
  ];
  const t = [await people.team('Vendas'), await people.team('Suporte')];
  await people.membership(u[0], t[0], 'leadership', true);
  await people.membership(u[1], t[1], 'participant', true);
  await people.membership(u[0], t[1], 'observer', false);
  const template = await people.template([
    { text: 'Qual o orçamento?', type: 'number' },
    { text: 'Quem decide?', type: 'text' },
  ]);
  const g = [await people.tag('prioridade'), await people.tag('renovação')];
  const c = [await people.competitor('Rival')];
  const s = [await people.skill('Descoberta')];
  const a = [await people.account(`cliente-a.${tag}.com.br`), await people.account(`cliente-b.${tag}.com.br`)];
  const m = [await talk.mailbox(u[0]), await talk.mailbox(u[1])];
  const r = [
    await people.recording('meeting', {
      owner: u[0],
      template,
      tags: [g[0]],
      competitors: [c[0]],
      accounts: [a[0]],
      transcript: 'original',
      evaluation: 'completed',
      enablement: { speakers: [u[0], u[1]] },
      skillScores: [{ user: u[1], skill: s[0], score: 70 }],
    }),
    await people.recording('meeting', { owner: u[1], template, answers: null }),
    await people.recording('call', { owner: u[0], template, tags: [g[1]], accounts: [a[1]], evaluation: 'processing' }),
  ];
  const thread = await talk.thread(m[0], 2, new Date(Date.now() - 3_600_000));
  await talk.emailAccounts(thread.conversation, [a[0]]);
  const chat = await talk.chat({
    seller: u[1],
    accounts: [a[1]],
    messages: [{ text: 'Olá' }, { text: 'Tudo bem?', direction: 'outbound' }],
  });
  const ids = (refs: Array<{ id: string }>) => refs.map((x) => String(x.id));
  const pools: Pools = {
    U: ids(u),
    T: ids(t),
    P: [template.id],
    Q: ids(template.questions),
    G: ids(g),
    C: ids(c),
    S: ids(s),
    A: ids(a),
    M: ids(m),
    R: ids(r),
    E: [thread.conversation.id],
    EM: ids(thread.messages),
    H: [chat.id],
    HM: ids(chat.messages),
  };
  return { company, pools };
}

// ---------------------------------------------------------------------------------------------
// Operations: each one or a few statements, on targets picked by small indexes at the moment a
// statement runs (an index is taken modulo its pool, which holds every id ever made in this
// history, committed, rolled back or deleted: an operation on a vanished target changes nothing
// or is refused by a foreign key, which rolls its transaction back).

interface Ctx {
  company: string;
  pools: Pools;
  /** The id and name (U0, R3, …) at `index` of `pool`. */
  pick: (pool: PoolName, index: number) => { id: string; name: string };
  /** Adds a new id to `pool`; its name. */
  add: (pool: PoolName, id: string) => string;
  /** A number never used before in this history (unique names, addresses, keys). */
  n: () => number;
}

interface Statement {
  /** The statement as the executed history shows it. */
  label: string;
  sql: string;
  params: unknown[];
  /** What to remember from its rows (a new id). */
  then?: (rows: Array<Record<string, unknown>>) => void;
}

/** A statement of an operation, built when it runs; `state` carries what an earlier statement of the same operation made. */
type StatementOf = (ctx: Ctx, op: Op, state: Record<string, string>) => Statement;

interface OpKindSpec {
  /** How the planned history names it (indexes as `U[1]`: index 1 of the users, modulo their number). */
  plan: (op: Op) => string;
  statements: StatementOf[];
}

interface Op {
  kind: OpKind;
  a: number;
  b: number;
  c: number;
}

const rename = (table: string, pool: PoolName, column: string, value: (n: number) => string): OpKindSpec => ({
  plan: (op) => `UPDATE ${table} ${pool}[${op.a}] ${column}`,
  statements: [
    (ctx, op) => {
      const t = ctx.pick(pool, op.a);
      const v = value(ctx.n());
      return {
        label: `UPDATE ${table} ${t.name} ${column} = '${v}'`,
        sql: `UPDATE ${table} SET ${column} = $2 WHERE id = $1`,
        params: [t.id, v],
      };
    },
  ],
});

/** A link row added (ON CONFLICT DO NOTHING: twice is once) or removed. */
const link = (table: string, owner: [PoolName, string], target: [PoolName, string], how: 'add' | 'remove'): OpKindSpec => ({
  plan: (op) => `${how === 'add' ? 'INSERT' : 'DELETE'} ${table}(${owner[0]}[${op.a}], ${target[0]}[${op.b}])`,
  statements: [
    (ctx, op) => {
      const [o, t] = [ctx.pick(owner[0], op.a), ctx.pick(target[0], op.b)];
      return how === 'add'
        ? {
            label: `INSERT ${table}(${o.name}, ${t.name})`,
            sql: `INSERT INTO ${table} (company_id, ${owner[1]}, ${target[1]}) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
            params: [ctx.company, o.id, t.id],
          }
        : {
            label: `DELETE ${table}(${o.name}, ${t.name})`,
            sql: `DELETE FROM ${table} WHERE ${owner[1]} = $1 AND ${target[1]} = $2`,
            params: [o.id, t.id],
          };
    },
  ],
});

const emailMessage: StatementOf = (ctx, op, state) => {
  const e = state.E ? { id: state.E, name: state.EName } : ctx.pick('E', op.a);
  const n = ctx.n();
  return {
    label: `INSERT email_messages(in ${e.name})`,
    sql: `INSERT INTO email_messages (public_id, company_id, conversation_id, message_id, sent_at, direction, subject, snippet, body_text, sender, recipients_to)
          VALUES ($1, $2, $3, $4, clock_timestamp(), 'inbound', 'Re: Proposta', 'Mensagem ' || $5, 'Mensagem ' || $5,
            jsonb_build_object('address', 'contato' || $5 || '@cliente.com.br', 'name', NULL, 'internal', false), '[]')
          RETURNING id::text`,
    params: [mintId('emailMessage'), ctx.company, e.id, `<m${n}.${ctx.company}@mail.example.com>`, String(n)],
    then: (rows) => ctx.add('EM', rows[0].id as string),
  };
};

const chatMessage: StatementOf = (ctx, op, state) => {
  const h = state.H ? { id: state.H, name: state.HName } : ctx.pick('H', op.a);
  const n = ctx.n();
  return {
    label: `INSERT chat_messages(in ${h.name})`,
    sql: `INSERT INTO chat_messages (public_id, company_id, conversation_id, external_id, sent_at, direction, author_phone, author_name, type, text)
          VALUES ($1, $2, $3, $4, clock_timestamp(), 'inbound', '+55 11 98888-7777', 'Cliente', 'text', 'Mensagem ' || $4) RETURNING id::text`,
    params: [mintId('chatMessage'), ctx.company, h.id, `x${n}`],
    then: (rows) => ctx.add('HM', rows[0].id as string),
  };
};

const OPS = {
  userRename: {
    plan: (op: Op) => `UPDATE users U[${op.a}] name, email`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const u = ctx.pick('U', op.a);
        const n = ctx.n();
        return {
          label: `UPDATE users ${u.name} name = 'Pessoa ${n}'`,
          sql: `UPDATE users SET name = $2, email = $3 WHERE id = $1`,
          params: [u.id, `Pessoa ${n}`, `pessoa${n}.${ctx.company}@empresa.com.br`],
        };
      },
    ],
  },
  teamRename: rename('teams', 'T', 'name', (n) => `Time ${n}`),
  membershipAdd: {
    plan: (op: Op) => `INSERT team_memberships(U[${op.a}], T[${op.b}])`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const [u, t] = [ctx.pick('U', op.a), ctx.pick('T', op.b)];
        return {
          label: `INSERT team_memberships(${u.name}, ${t.name})`,
          sql: `INSERT INTO team_memberships (company_id, user_id, team_id, role, is_default) VALUES ($1, $2, $3, 'participant', false)
                ON CONFLICT DO NOTHING`,
          params: [ctx.company, u.id, t.id],
        };
      },
    ],
  },
  membershipRemove: link('team_memberships', ['U', 'user_id'], ['T', 'team_id'], 'remove'),
  membershipDefault: {
    plan: (op: Op) => `UPDATE team_memberships U[${op.a}] default = T[${op.b}]`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const [u, t] = [ctx.pick('U', op.a), ctx.pick('T', op.b)];
        return {
          label: `UPDATE team_memberships(${u.name}, not ${t.name}) is_default = false`,
          sql: `UPDATE team_memberships SET is_default = false WHERE user_id = $1 AND team_id <> $2 AND is_default`,
          params: [u.id, t.id],
        };
      },
      (ctx: Ctx, op: Op) => {
        const [u, t] = [ctx.pick('U', op.a), ctx.pick('T', op.b)];
        return {
          label: `UPDATE team_memberships(${u.name}, ${t.name}) is_default = true`,
          sql: `UPDATE team_memberships SET is_default = true WHERE user_id = $1 AND team_id = $2`,
          params: [u.id, t.id],
        };
      },
    ],
  },
  templateRename: rename('templates', 'P', 'name', (n) => `Roteiro ${n}`),
  questionText: rename('template_questions', 'Q', 'text', (n) => `Pergunta ${n}?`),
  questionAdd: {
    plan: (op: Op) => `INSERT template_questions(P[${op.a}])`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const p = ctx.pick('P', op.a);
        const n = ctx.n();
        return {
          label: `INSERT template_questions(${p.name})`,
          sql: `INSERT INTO template_questions (public_id, company_id, template_id, text, type, position)
                SELECT $1, $2, $3, $4, 'text', coalesce(max(position), 0) + 1 FROM template_questions WHERE template_id = $3
                RETURNING id::text`,
          params: [mintId('question'), ctx.company, p.id, `Pergunta nova ${n}?`],
          then: (rows: Array<Record<string, unknown>>) => ctx.add('Q', rows[0].id as string),
        };
      },
    ],
  },
  tagRename: rename('tags', 'G', 'name', (n) => `tag ${n}`),
  competitorRename: rename('competitors', 'C', 'name', (n) => `Concorrente ${n}`),
  skillRename: rename('skills', 'S', 'name', (n) => `Skill ${n}`),
  accountDomain: rename('accounts', 'A', 'domain', (n) => `cliente-${n}.com.br`),
  mailboxAddress: rename('mailboxes', 'M', 'address', (n) => `caixa${n}@empresa.com.br`),
  mailboxOwner: {
    plan: (op: Op) => `UPDATE mailboxes M[${op.a}] owner = U[${op.b}]`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const [m, u] = [ctx.pick('M', op.a), ctx.pick('U', op.b)];
        return {
          label: `UPDATE mailboxes ${m.name} owner = ${u.name}`,
          sql: `UPDATE mailboxes SET owner_id = $2 WHERE id = $1`,
          params: [m.id, u.id],
        };
      },
    ],
  },
  mailboxNew: {
    plan: (op: Op) => `INSERT mailboxes(owner=U[${op.a}]) + email_conversation_mailboxes(E[${op.b}])`,
    statements: [
      (ctx: Ctx, op: Op, state: Record<string, string>) => {
        const u = ctx.pick('U', op.a);
        const n = ctx.n();
        return {
          label: `INSERT mailboxes(owner=${u.name})`,
          sql: `INSERT INTO mailboxes (company_id, address, owner_id) VALUES ($1, $2, $3) RETURNING id::text`,
          params: [ctx.company, `nova${n}@empresa.com.br`, u.id],
          then: (rows: Array<Record<string, unknown>>) => {
            state.M = rows[0].id as string;
            state.MName = ctx.add('M', state.M);
          },
        };
      },
      (ctx: Ctx, op: Op, state: Record<string, string>) => {
        const e = ctx.pick('E', op.b);
        return {
          label: `INSERT email_conversation_mailboxes(${e.name}, ${state.MName})`,
          sql: `INSERT INTO email_conversation_mailboxes (company_id, conversation_id, mailbox_id) VALUES ($1, $2, $3)`,
          params: [ctx.company, e.id, state.M],
        };
      },
    ],
  },
  meetingNew: {
    plan: (op: Op) => `INSERT recordings(meeting, owner=U[${op.a}], template=P[${op.b}]) + recording_tags(G[${op.c}])`,
    statements: [
      (ctx: Ctx, op: Op, state: Record<string, string>) => {
        const [u, p] = [ctx.pick('U', op.a), ctx.pick('P', op.b)];
        return {
          label: `INSERT recordings(meeting, owner=${u.name}, template=${p.name})`,
          sql: `INSERT INTO recordings (public_id, company_id, kind, title, media_type, audience, meeting_at, duration_seconds, owner_id, template_id, bot_history)
                VALUES ($1, $2, 'meeting', 'Reunião nova', 'video', 'internal', now(), 60, $3, $4, '[]') RETURNING id::text`,
          params: [mintId('meeting'), ctx.company, u.id, p.id],
          then: (rows: Array<Record<string, unknown>>) => {
            state.R = rows[0].id as string;
            state.RName = ctx.add('R', state.R);
          },
        };
      },
      (ctx: Ctx, op: Op, state: Record<string, string>) => {
        const g = ctx.pick('G', op.c);
        return {
          label: `INSERT recording_tags(${state.RName}, ${g.name})`,
          sql: `INSERT INTO recording_tags (company_id, recording_id, tag_id) VALUES ($1, $2, $3)`,
          params: [ctx.company, state.R, g.id],
        };
      },
    ],
  },
  chatNew: {
    plan: (op: Op) => `INSERT chat_conversations(seller=U[${op.a}]) + account A[${op.b}]; + a message`,
    statements: [
      (ctx: Ctx, op: Op, state: Record<string, string>) => {
        const [u, a] = [ctx.pick('U', op.a), ctx.pick('A', op.b)];
        const n = ctx.n();
        return {
          label: `INSERT chat_conversations(seller=${u.name}) + chat_conversation_accounts(${a.name})`,
          sql: `WITH c AS (
                  INSERT INTO chat_conversations (public_id, company_id, source, chat_key, is_group, contact_phone, contact_name, seller_id,
                    seller_phone, first_message_at, last_message_at, last_message_direction)
                  VALUES ($1, $2, 'chat_web', $5, false, '+55 11 91111-2222', 'Cliente', $3, '+55 11 90000-0000', now(), now(), 'inbound')
                  RETURNING id, company_id)
                INSERT INTO chat_conversation_accounts (company_id, conversation_id, account_id) SELECT company_id, id, $4 FROM c
                RETURNING conversation_id::text AS id`,
          params: [mintId('chatConversation'), ctx.company, u.id, a.id, `k${n}`],
          then: (rows: Array<Record<string, unknown>>) => {
            state.H = rows[0].id as string;
            state.HName = ctx.add('H', state.H);
          },
        };
      },
      chatMessage,
    ],
  },
  emailNew: {
    plan: (op: Op) => `INSERT email_conversations(mailbox=M[${op.a}], account=A[${op.b}]); + a message`,
    statements: [
      (ctx: Ctx, op: Op, state: Record<string, string>) => {
        const [m, a] = [ctx.pick('M', op.a), ctx.pick('A', op.b)];
        const n = ctx.n();
        return {
          label: `INSERT email_conversations + mailboxes(${m.name}) + accounts(${a.name})`,
          sql: `WITH c AS (
                  INSERT INTO email_conversations (public_id, company_id, thread_key, subject, first_message_at, last_message_at, last_message_direction)
                  VALUES ($1, $2, $5, 'Assunto ' || $5, now(), now(), 'outbound') RETURNING id, company_id),
                mb AS (INSERT INTO email_conversation_mailboxes (company_id, conversation_id, mailbox_id) SELECT company_id, id, $3 FROM c)
                INSERT INTO email_conversation_accounts (company_id, conversation_id, account_id) SELECT company_id, id, $4 FROM c
                RETURNING conversation_id::text AS id`,
          params: [mintId('emailConversation'), ctx.company, m.id, a.id, `t${n}`],
          then: (rows: Array<Record<string, unknown>>) => {
            state.E = rows[0].id as string;
            state.EName = ctx.add('E', state.E);
          },
        };
      },
      emailMessage,
    ],
  },
  emailMessageNew: { plan: (op: Op) => `INSERT email_messages(in E[${op.a}])`, statements: [emailMessage] },
  chatMessageNew: { plan: (op: Op) => `INSERT chat_messages(in H[${op.a}])`, statements: [chatMessage] },
  chatMessageEdit: rename('chat_messages', 'HM', 'text', (n) => `Editada ${n}`),
  recordTitle: rename('recordings', 'R', 'title', (n) => `Título ${n}`),
  tagAdd: link('recording_tags', ['R', 'recording_id'], ['G', 'tag_id'], 'add'),
  tagRemove: link('recording_tags', ['R', 'recording_id'], ['G', 'tag_id'], 'remove'),
  competitorAdd: link('recording_competitors', ['R', 'recording_id'], ['C', 'competitor_id'], 'add'),
  competitorRemove: link('recording_competitors', ['R', 'recording_id'], ['C', 'competitor_id'], 'remove'),
  recordAccountAdd: link('recording_accounts', ['R', 'recording_id'], ['A', 'account_id'], 'add'),
  recordAccountRemove: link('recording_accounts', ['R', 'recording_id'], ['A', 'account_id'], 'remove'),
  emailAccountAdd: link('email_conversation_accounts', ['E', 'conversation_id'], ['A', 'account_id'], 'add'),
  emailAccountRemove: link('email_conversation_accounts', ['E', 'conversation_id'], ['A', 'account_id'], 'remove'),
  chatAccountAdd: link('chat_conversation_accounts', ['H', 'conversation_id'], ['A', 'account_id'], 'add'),
  chatAccountRemove: link('chat_conversation_accounts', ['H', 'conversation_id'], ['A', 'account_id'], 'remove'),
  emailMailboxAdd: link('email_conversation_mailboxes', ['E', 'conversation_id'], ['M', 'mailbox_id'], 'add'),
  emailMailboxRemove: link('email_conversation_mailboxes', ['E', 'conversation_id'], ['M', 'mailbox_id'], 'remove'),
  speakingDuration: {
    plan: (op: Op) => `UPSERT recording_speaking_durations(R[${op.a}], U[${op.b}])`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const [r, u] = [ctx.pick('R', op.a), ctx.pick('U', op.b)];
        return {
          label: `UPSERT recording_speaking_durations(${r.name}, ${u.name})`,
          sql: `INSERT INTO recording_speaking_durations (company_id, recording_id, user_id, duration_seconds) VALUES ($1, $2, $3, $4)
                ON CONFLICT (recording_id, user_id) DO UPDATE SET duration_seconds = EXCLUDED.duration_seconds`,
          params: [ctx.company, r.id, u.id, ctx.n()],
        };
      },
    ],
  },
  skillScore: {
    plan: (op: Op) => `UPSERT recording_skill_scores(R[${op.a}], U[${op.b}], S[${op.c}])`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const [r, u, s] = [ctx.pick('R', op.a), ctx.pick('U', op.b), ctx.pick('S', op.c)];
        return {
          label: `UPSERT recording_skill_scores(${r.name}, ${u.name}, ${s.name})`,
          sql: `INSERT INTO recording_skill_scores (company_id, recording_id, user_id, skill_id, score) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (recording_id, user_id, skill_id) DO UPDATE SET score = EXCLUDED.score`,
          params: [ctx.company, r.id, u.id, s.id, ctx.n() % 101],
        };
      },
    ],
  },
  transcriptWritten: {
    plan: (op: Op) => `UPSERT transcripts(R[${op.a}])`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const r = ctx.pick('R', op.a);
        const n = ctx.n();
        return {
          label: `UPSERT transcripts(${r.name})`,
          sql: `INSERT INTO transcripts (company_id, recording_id, variant, utterances) VALUES ($1, $2, 'original', $3)
                ON CONFLICT (recording_id, variant) DO UPDATE SET utterances = EXCLUDED.utterances, updated_at = now()`,
          params: [ctx.company, r.id, JSON.stringify([{ speaker: 'Vendedor', text: `Fala ${n}`, start_ms: 0, end_ms: 1000 }])],
        };
      },
    ],
  },
  transcriptStatus: {
    plan: (op: Op) => `UPDATE recordings R[${op.a}] transcript_status`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const r = ctx.pick('R', op.a);
        return {
          label: `UPDATE recordings ${r.name} transcript_status`,
          sql: `UPDATE recordings r SET transcript_status =
                  CASE WHEN EXISTS (SELECT 1 FROM transcripts t WHERE t.recording_id = r.id) THEN 'completed' ELSE 'processing' END
                WHERE r.id = $1`,
          params: [r.id],
        };
      },
    ],
  },
  evaluationWritten: {
    plan: (op: Op) => `UPSERT recording_evaluations(R[${op.a}])`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const r = ctx.pick('R', op.a);
        return {
          label: `UPSERT recording_evaluations(${r.name})`,
          sql: `INSERT INTO recording_evaluations (public_id, company_id, recording_id, status, score, justification)
                VALUES ($1, $2, $3, 'completed', $4, 'Boa condução.')
                ON CONFLICT (recording_id) DO UPDATE SET status = 'completed', score = EXCLUDED.score,
                  justification = EXCLUDED.justification, updated_at = now()`,
          params: [mintId('evaluation'), ctx.company, r.id, ctx.n() % 101],
        };
      },
    ],
  },
  answerWritten: {
    plan: (op: Op) => `UPSERT recording_answers(R[${op.a}], Q[${op.b}])`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const [r, q] = [ctx.pick('R', op.a), ctx.pick('Q', op.b)];
        const n = ctx.n();
        return {
          label: `UPSERT recording_answers(${r.name}, ${q.name})`,
          sql: `INSERT INTO recording_answers (public_id, company_id, recording_id, question_id, answer) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (recording_id, question_id) DO UPDATE SET answer = EXCLUDED.answer, updated_at = now()`,
          params: [mintId('answer'), ctx.company, r.id, q.id, `Resposta ${n}`],
        };
      },
    ],
  },
  kindChange: {
    plan: (op: Op) => `UPDATE recordings R[${op.a}] kind meeting <-> call`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const r = ctx.pick('R', op.a);
        return {
          label: `UPDATE recordings ${r.name} kind meeting <-> call`,
          sql: `UPDATE recordings SET kind = CASE kind WHEN 'meeting' THEN 'call' ELSE 'meeting' END,
                  bot_history = CASE kind WHEN 'meeting' THEN NULL ELSE '[]'::jsonb END,
                  -- An id of the new kind: the database refuses one of the other kind.
                  public_id = CASE kind WHEN 'meeting' THEN $2 ELSE $3 END
                WHERE id = $1`,
          params: [r.id, mintId('call'), mintId('meeting')],
        };
      },
    ],
  },
  templateChange: {
    plan: (op: Op) => `UPDATE recordings R[${op.a}] template = P[${op.b}] or none`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const [r, p] = [ctx.pick('R', op.a), ctx.pick('P', op.b)];
        const none = op.c % 2 === 1;
        return {
          label: `UPDATE recordings ${r.name} template = ${none ? 'none' : p.name}`,
          sql: `UPDATE recordings SET template_id = $2 WHERE id = $1`,
          params: [r.id, none ? null : p.id],
        };
      },
    ],
  },
  recordDelete: {
    plan: (op: Op) => `DELETE recordings R[${op.a}]`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const r = ctx.pick('R', op.a);
        return { label: `DELETE recordings ${r.name}`, sql: `DELETE FROM recordings WHERE id = $1`, params: [r.id] };
      },
    ],
  },
  emailMessageDelete: {
    plan: (op: Op) => `DELETE email_messages EM[${op.a}]`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const m = ctx.pick('EM', op.a);
        return { label: `DELETE email_messages ${m.name}`, sql: `DELETE FROM email_messages WHERE id = $1`, params: [m.id] };
      },
    ],
  },
  chatMessageDelete: {
    plan: (op: Op) => `DELETE chat_messages HM[${op.a}]`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const m = ctx.pick('HM', op.a);
        return { label: `DELETE chat_messages ${m.name}`, sql: `DELETE FROM chat_messages WHERE id = $1`, params: [m.id] };
      },
    ],
  },
  emailMessageMove: {
    plan: (op: Op) => `UPDATE email_messages EM[${op.a}] conversation = E[${op.b}]`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const [m, e] = [ctx.pick('EM', op.a), ctx.pick('E', op.b)];
        return {
          label: `UPDATE email_messages ${m.name} conversation = ${e.name}`,
          sql: `UPDATE email_messages SET conversation_id = $2 WHERE id = $1`,
          params: [m.id, e.id],
        };
      },
    ],
  },
  chatMessageMove: {
    plan: (op: Op) => `UPDATE chat_messages HM[${op.a}] conversation = H[${op.b}]`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const [m, h] = [ctx.pick('HM', op.a), ctx.pick('H', op.b)];
        return {
          label: `UPDATE chat_messages ${m.name} conversation = ${h.name}`,
          sql: `UPDATE chat_messages SET conversation_id = $2 WHERE id = $1`,
          params: [m.id, h.id],
        };
      },
    ],
  },
  emailDelete: {
    plan: (op: Op) => `DELETE email_conversations E[${op.a}]`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const e = ctx.pick('E', op.a);
        return { label: `DELETE email_conversations ${e.name}`, sql: `DELETE FROM email_conversations WHERE id = $1`, params: [e.id] };
      },
    ],
  },
  chatDelete: {
    plan: (op: Op) => `DELETE chat_conversations H[${op.a}]`,
    statements: [
      (ctx: Ctx, op: Op) => {
        const h = ctx.pick('H', op.a);
        return { label: `DELETE chat_conversations ${h.name}`, sql: `DELETE FROM chat_conversations WHERE id = $1`, params: [h.id] };
      },
    ],
  },
} satisfies Record<string, OpKindSpec>;

type OpKind = keyof typeof OPS;
/**
 * CAPTURE_OPS_EXCLUDE=kindA,kindB leaves operations out of the histories: to look past a bug the
 * machine already found (each is named by its key in OPS).
 */
const EXCLUDED = new Set((process.env.CAPTURE_OPS_EXCLUDE ?? '').split(',').filter(Boolean));
for (const kind of EXCLUDED) if (!(kind in OPS)) throw new Error(`CAPTURE_OPS_EXCLUDE: no operation ${kind}`);
const OP_KINDS = (Object.keys(OPS) as OpKind[]).filter((kind) => !EXCLUDED.has(kind));

// ---------------------------------------------------------------------------------------------
// Histories.

interface Txn {
  ops: Op[];
  commit: boolean;
}
/** A writer's index, or the integrator polling, or the refresher running. */
type Token = number | 'poll' | 'refresh';
interface History {
  writers: Txn[][];
  schedule: Token[];
}

type Step =
  { type: 'begin' } | { type: 'statement'; op: Op; index: number; state: Record<string, string> } | { type: 'end'; commit: boolean };

/** A writer's steps in order: BEGIN, each statement of each operation, COMMIT or ROLLBACK; per transaction. */
function stepsOf(txns: Txn[]): Step[] {
  const steps: Step[] = [];
  for (const t of txns) {
    steps.push({ type: 'begin' });
    // One kind change a transaction: a record that changes kind takes an id of its new kind, and
    // the capture refuses a second such change in one transaction (one entry per object and
    // transaction could not say both), so the second is left out.
    const ops = t.ops.filter((op, i) => op.kind !== 'kindChange' || t.ops.findIndex((o) => o.kind === 'kindChange') === i);
    for (const op of ops) {
      const state: Record<string, string> = {};
      OPS[op.kind].statements.forEach((_, index) => steps.push({ type: 'statement', op, index, state }));
    }
    steps.push({ type: 'end', commit: t.commit });
  }
  return steps;
}

/** The history as planned, as if no statement blocked (blocked writers skip their turns; the executed history says what happened). */
function planned(h: History): string {
  const steps = h.writers.map(stepsOf);
  const at = steps.map(() => 0);
  const lines: string[] = [];
  const say = (w: number) => {
    const s = steps[w][at[w]++];
    const who = `W${w + 1}`;
    if (s.type === 'begin') lines.push(`${who} BEGIN`);
    else if (s.type === 'end') lines.push(`${who} ${s.commit ? 'COMMIT' : 'ROLLBACK'}`);
    else lines.push(`${who} ${OPS[s.op.kind].plan(s.op)}${OPS[s.op.kind].statements.length > 1 ? ` (statement ${s.index + 1})` : ''}`);
  };
  for (const t of h.schedule) {
    if (t === 'poll' || t === 'refresh') lines.push(t === 'poll' ? 'client polls the feed' : 'read model refreshes');
    else if (at[t % steps.length] < steps[t % steps.length].length) say(t % steps.length);
  }
  lines.push('-- then the rest, writers in turn:');
  for (let w = 0; w < steps.length; w++) while (at[w] < steps[w].length) say(w);
  return lines.join('\n');
}

/**
 * How often each operation is drawn: the writes that change how a shared row is shown, and those
 * that attach a record to one (or write a part while its record may change kind), most often:
 * their races are what the capture must order.
 */
const WEIGHT: Partial<Record<OpKind, number>> = {
  userRename: 8,
  teamRename: 3,
  templateRename: 3,
  questionText: 3,
  tagRename: 4,
  competitorRename: 3,
  skillRename: 3,
  accountDomain: 4,
  mailboxAddress: 3,
  mailboxOwner: 4,
  meetingNew: 5,
  chatNew: 5,
  emailNew: 4,
  membershipAdd: 3,
  membershipDefault: 2,
  speakingDuration: 3,
  skillScore: 3,
  tagAdd: 3,
  competitorAdd: 2,
  recordAccountAdd: 3,
  emailAccountAdd: 2,
  chatAccountAdd: 2,
  emailMailboxAdd: 2,
  answerWritten: 3,
  transcriptWritten: 4,
  evaluationWritten: 2,
  kindChange: 4,
};
const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.oneof(...OP_KINDS.map((kind) => ({ weight: WEIGHT[kind] ?? 1, arbitrary: fc.constant(kind) }))),
  a: fc.nat({ max: 3 }),
  b: fc.nat({ max: 3 }),
  c: fc.nat({ max: 3 }),
});
const txnArb: fc.Arbitrary<Txn> = fc.record({
  ops: fc.array(opArb, { minLength: 1, maxLength: 4 }),
  commit: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
});
const historyArb: fc.Arbitrary<History> = fc
  .record({
    writers: fc.array(fc.array(txnArb, { minLength: 1, maxLength: 2 }), { minLength: 2, maxLength: 3 }),
    schedule: fc.array(
      fc.oneof(
        { weight: 10, arbitrary: fc.nat({ max: 2 }) as fc.Arbitrary<Token> },
        { weight: 3, arbitrary: fc.constant('poll' as const) },
        { weight: 3, arbitrary: fc.constant('refresh' as const) },
      ),
      { minLength: 10, maxLength: 80 },
    ),
  })
  .map((h) => Object.assign(h, { [fc.toStringMethod]: () => `\n${planned(h)}\n` }));

// ---------------------------------------------------------------------------------------------

describe('change capture and the read model under interleaved writers [waits]', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let base: string;
  let ownerPool: OwnerPool;
  let readModel: ReadModels;
  let writers: WriterConnection[];
  let monitor: Client;
  let su: Client;
  let restoreDeadlockTimeout: string;
  const http = () => request(base);

  beforeAll(async () => {
    const ownerUrl = process.env.TEST_MIGRATION_DATABASE_URL!;
    // Deadlocks are found after deadlock_timeout (1 s by default): the writers' role finds them sooner here.
    su = new Client({ connectionString: process.env.TEST_SUPER_DATABASE_URL, application_name: 'interleavings-super' });
    await su.connect();
    const [role, database] = [decodeURIComponent(new URL(ownerUrl).username), new URL(ownerUrl).pathname.slice(1)];
    const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const { rows } = await su.query<{ setting: string | null }>(
      `SELECT (SELECT s FROM pg_db_role_setting d, unnest(d.setconfig) s
         WHERE d.setrole = (SELECT oid FROM pg_roles WHERE rolname = $1) AND d.setdatabase = (SELECT oid FROM pg_database WHERE datname = $2)
           AND s LIKE 'deadlock_timeout=%') AS setting`,
      [role, database],
    );
    const previous = rows[0].setting;
    restoreDeadlockTimeout = previous
      ? `ALTER ROLE ${ident(role)} IN DATABASE ${ident(database)} SET deadlock_timeout = '${previous.split('=')[1]}'`
      : `ALTER ROLE ${ident(role)} IN DATABASE ${ident(database)} RESET deadlock_timeout`;
    await su.query(`ALTER ROLE ${ident(role)} IN DATABASE ${ident(database)} SET deadlock_timeout = '${DEADLOCK_TIMEOUT}'`);

    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    await installCaptureUnderTest((sql) => db.query(sql));
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    ownerPool = new OwnerPool(app.get(DatabaseUrls), app.get(AppConfig), new Metrics(false));
    readModel = new ReadModels([
      recordingDocumentRefresher(ownerPool),
      conversationDocumentRefresher(ownerPool, [EMAIL_CHANNEL, CHAT_CHANNEL]),
    ]);
    writers = await Promise.all([1, 2, 3].map((i) => WriterConnection.open(ownerUrl, `W${i}`)));
    monitor = new Client({ connectionString: ownerUrl, application_name: 'interleavings-monitor' });
    await monitor.connect();
    const { rows: timeouts } = await writers[0].client.query<{ deadlock_timeout: string }>('SHOW deadlock_timeout');
    expect(timeouts[0].deadlock_timeout).toBe(DEADLOCK_TIMEOUT);
  });

  afterAll(async () => {
    await Promise.all((writers ?? []).map((w) => w.end()));
    await monitor?.end();
    await ownerPool?.onApplicationShutdown();
    await Promise.all([db?.destroy(), app?.close()]);
    if (restoreDeadlockTimeout) await su.query(restoreDeadlockTimeout);
    await su?.end();
  });

  /** Runs one history; throws (with the history as it ran) where it goes wrong. */
  async function run(h: History): Promise<void> {
    const t0 = Date.now();
    const lap = (what: string) => PROFILE && console.log(`${what}: ${Date.now() - t0} ms`);
    const { company, pools } = await seedCompany(db);
    lap('seeded');
    const auth = `Bearer ${await tokenFor(http(), await createClient(db, company, { scopes: DATA_SCOPES }))}`;
    lap('token');
    await readModel.refreshAll();
    lap('refreshed');
    // The integrator: the feed from now, then a full read as its first copy.
    const start = await http().get('/v1/changes?start=now').set('Authorization', auth).expect(200);
    const reader = new FeedReader(http, auth.slice('Bearer '.length));
    reader.cursor = start.body.pagination.next_cursor;
    const copy: Objects = (await fullRead(http, auth)).objects;
    lap('first full read');

    const log: string[] = [];
    let counter = 0;
    const ctx: Ctx = {
      company: company.id,
      pools,
      pick: (pool, index) => {
        const ids = pools[pool];
        const i = index % ids.length;
        return { id: ids[i], name: `${pool}${i}` };
      },
      add: (pool, id) => {
        pools[pool].push(id);
        return `${pool}${pools[pool].length - 1}`;
      },
      n: () => ++counter,
    };
    const w = writers.slice(0, h.writers.length);
    const steps = h.writers.map(stepsOf);
    const at = steps.map(() => 0);
    const done = (i: number) => at[i] >= steps[i].length && !w[i].pending;

    /** Skips the rest of writer i's transaction (after an error rolled it back). */
    const skipTxn = (i: number) => {
      while (at[i] < steps[i].length && steps[i][at[i]].type !== 'end') at[i]++;
      if (at[i] < steps[i].length) at[i]++;
    };

    /** Takes writer i's settled outcome, if any: remembers what it made, or rolls the transaction back on an error that aborts it. */
    const notice = async (i: number, wasBlocked: boolean) => {
      const settled = w[i].takeOutcome();
      if (!settled) return;
      const { label, outcome } = settled;
      if (outcome.ok) {
        if (wasBlocked) log.push(`W${i + 1}   ...${label}: went through`);
        pendingThen[i]?.(outcome.rows);
        pendingThen[i] = undefined;
        return;
      }
      pendingThen[i] = undefined;
      const code = outcome.error.code ?? '';
      if (!(code in ROLLS_BACK)) throw new Error(`W${i + 1} ${label}: ${code} ${outcome.error.message} (an error no writer should meet)`);
      log.push(`W${i + 1}   ...${label}: ${code} ${ROLLS_BACK[code]}: ROLLBACK`);
      await w[i].client.query('ROLLBACK');
      skipTxn(i);
    };
    const pendingThen: Array<((rows: Array<Record<string, unknown>>) => void) | undefined> = w.map(() => undefined);
    const blockedOnes = () => w.map((x, i) => (x.blocked ? `W${i + 1}` : '')).filter(Boolean);

    /** Writer i's next step. */
    const step = async (i: number) => {
      // A statement that settled since the last look is taken first (an error may end the transaction).
      await notice(i, true);
      if (at[i] >= steps[i].length) return;
      const s = steps[i][at[i]++];
      const who = `W${i + 1}`;
      if (s.type === 'begin') {
        await w[i].client.query('BEGIN');
        log.push(`${who} BEGIN`);
      } else if (s.type === 'end') {
        await w[i].client.query(s.commit ? 'COMMIT' : 'ROLLBACK');
        log.push(`${who} ${s.commit ? 'COMMIT' : 'ROLLBACK'}`);
      } else {
        const st: Statement = (OPS[s.op.kind].statements[s.index] as StatementOf)(ctx, s.op, s.state);
        pendingThen[i] = st.then;
        const how = await w[i].issue(st.label, st.sql, st.params, monitor, SETTLE_OR_WAIT_MS);
        log.push(`${who} ${st.label}${how === 'blocked' ? '   (blocked on a lock)' : ''}`);
        if (how === 'settled') await notice(i, false);
      }
    };

    const poll = async (why: string) => {
      const did = await applyEntries(http, auth, copy, await withDeadline(reader.poll(), REFRESH_MS, 'a poll of the feed'));
      log.push(`${why}: ${did.length ? did.join('; ') : 'nothing new'}`);
    };
    const refresh = async () => {
      const blocked = blockedOnes();
      const r = await withDeadline(
        readModel.refreshAll(),
        REFRESH_MS,
        `the refresher${blocked.length ? ` (while ${blocked.join(', ')} blocked)` : ''}`,
      );
      log.push(
        `read model refreshes${blocked.length ? ` while ${blocked.join(', ')} blocked` : ''}: ${r.rendered} written, ${r.removed} removed`,
      );
    };

    try {
      try {
        for (const t of h.schedule) {
          for (let i = 0; i < w.length; i++) await notice(i, true);
          if (t === 'poll') await poll('client polls');
          else if (t === 'refresh') await refresh();
          else {
            const i = t % w.length;
            if (!w[i].blocked && at[i] < steps[i].length) await step(i);
          }
        }
        // The rest: writers in turn; when every writer left is blocked, wait for one to settle (a deadlock is found by PostgreSQL).
        for (;;) {
          for (let i = 0; i < w.length; i++) await notice(i, true);
          const left = w.map((_, i) => i).filter((i) => !done(i));
          if (!left.length) break;
          const free = left.find((i) => !w[i].blocked);
          if (free !== undefined) await step(free);
          else
            await withDeadline(
              Promise.race(left.map((i) => w[i].pending!.promise)),
              DEADLOCK_MS,
              `the blocked statements of ${left.map((i) => `W${i + 1}`).join(', ')}`,
            );
        }
      } catch (e) {
        await Promise.all(w.map((x) => x.reset(monitor).catch(() => undefined)));
        throw e;
      }

      lap('history');
      // Every transaction has ended: the last poll, the last refresh.
      await poll('client catches up');
      await refresh();
      const [{ n: waiting }] = await db.query(
        `SELECT (SELECT count(*) FROM recording_documents WHERE company_id = $1 AND document IS NULL)
              + (SELECT count(*) FROM conversation_documents WHERE company_id = $1 AND document IS NULL)
              + (SELECT count(*) FROM recordings r WHERE company_id = $1 AND NOT EXISTS (SELECT 1 FROM recording_documents d WHERE d.recording_id = r.id))
              + (SELECT count(*) FROM email_conversations c WHERE company_id = $1
                   AND NOT EXISTS (SELECT 1 FROM conversation_documents d WHERE d.channel = 'email' AND d.conversation_id = c.id))
              + (SELECT count(*) FROM chat_conversations c WHERE company_id = $1
                   AND NOT EXISTS (SELECT 1 FROM conversation_documents d WHERE d.channel = 'chat' AND d.conversation_id = c.id)) AS n`,
        [company.id],
      );
      if (Number(waiting) !== 0) throw new Error(`${waiting} documents not written (or missing) after the last refresh`);

      // (a) the stored documents are their live renderings.
      const stored = await fullRead(http, auth);
      await db.query(
        `UPDATE recording_documents SET document = NULL, format = NULL, evaluation = NULL, answers = NULL WHERE company_id = $1`,
        [company.id],
      );
      await db.query(`UPDATE conversation_documents SET document = NULL, messages = NULL, format = NULL WHERE company_id = $1`, [
        company.id,
      ]);
      const live = await fullRead(http, auth);
      lap('checked');
      const problems: string[] = [];
      const storedDiffs = differences(['stored', 'live'], stored.objects, live.objects);
      for (const [list, items] of Object.entries(stored.lists)) {
        const other = live.lists[list];
        const i = [...Array(Math.max(items.length, other.length)).keys()].find(
          (k) => JSON.stringify(items[k]) !== JSON.stringify(other[k]),
        );
        if (i !== undefined)
          storedDiffs.push(
            `GET /v1/${list} with include, item ${i}:\n      stored: ${JSON.stringify(items[i]).slice(0, 800)}\n      live:   ${JSON.stringify(other[i]).slice(0, 800)}`,
          );
      }
      if (storedDiffs.length) problems.push(`stored documents differ from their live rendering:\n  ${storedDiffs.join('\n  ')}`);
      // (b) the copy built from the feed is what the routes show.
      const copyDiffs = differences(['copy', 'routes'], copy, live.objects);
      if (copyDiffs.length) problems.push(`the copy built from the feed differs from a full read:\n  ${copyDiffs.join('\n  ')}`);
      if (problems.length) throw new Error(problems.join('\n'));
      if (PROFILE) console.log(log.join('\n'));
    } catch (e) {
      const names = (Object.keys(pools) as PoolName[]).map((p) => `${p}0..${p}${pools[p].length - 1}`).join(' ');
      (e as Error).message =
        `${(e as Error).message}\n\nThe history as it ran (company ${company.publicId}; ${names}):\n  ${log.join('\n  ')}\n`;
      throw e;
    }
  }

  it(
    'keeps every stored document equal to its live rendering, and a copy built from the feed equal to the routes',
    async () => {
      await fc.assert(fc.asyncProperty(historyArb, run), { numRuns: HISTORIES, ...replay() });
    },
    900_000 + HISTORIES * 5_000,
  );
});
