import { createHash } from 'node:crypto';
import { json, jsonArray, jsonObject } from '../database/json-sql';
import { iso, micros } from '../database/sql';
import { RECORDING_PARTS, RecordingKind, RecordingPart } from './recording.vocabulary';

/**
 * The wire format of meetings and calls, written once, in SQL: PostgreSQL renders each record's
 * final JSON text (fields in the spec's order; a call has no `bot_history` key at all) and the
 * service passes it through without parsing it. recording.dto.ts describes the same shape for
 * the interface description, and every test answer is validated against that document.
 */

/**
 * A one-to-many relation of a record: the rows of `from` (whose link table is aliased `l`,
 * keyed by `l.recording_id`), each shown as `item`, in `order`. `also` adds a condition on the
 * record (aliased as given).
 */
interface Relation {
  from: string;
  item: string;
  order: string;
  also?: (record: string) => string;
}

const idName = (alias: string) =>
  jsonObject([
    ['id', json(`${alias}.public_id`)],
    ['name', json(`${alias}.name`)],
  ]);
const userRef = (alias: string) =>
  jsonObject([
    ['id', json(`${alias}.public_id`)],
    ['name', json(`${alias}.name`)],
    ['email', json(`${alias}.email`)],
  ]);

const RELATIONS = {
  template_answers: {
    from: 'recording_answers l JOIN template_questions q ON q.id = l.question_id',
    item: jsonObject([
      ['field', json('q.public_id')],
      ['question', json('q.text')],
      ['answer', json('l.answer')],
    ]),
    order: 'q.position',
    also: (record) => `q.template_id = ${record}.template_id`,
  },
  tags: { from: 'recording_tags l JOIN tags t ON t.id = l.tag_id', item: idName('t'), order: 't.name, t.id' },
  competitors: { from: 'recording_competitors l JOIN competitors c ON c.id = l.competitor_id', item: idName('c'), order: 'c.name, c.id' },
  accounts: {
    from: 'recording_accounts l JOIN accounts ac ON ac.id = l.account_id',
    item: jsonObject([
      ['id', json('ac.public_id')],
      ['domain', json('ac.domain')],
      ['cnpj', json('ac.cnpj')],
    ]),
    order: 'ac.domain, ac.id',
  },
  speaking_durations: {
    from: 'recording_speaking_durations l JOIN users su ON su.id = l.user_id',
    item: jsonObject([
      ['user', userRef('su')],
      ['duration_seconds', json('l.duration_seconds')],
    ]),
    order: 'l.duration_seconds DESC, su.id',
  },
  skill_scores: {
    from: 'recording_skill_scores l JOIN users ku ON ku.id = l.user_id JOIN skills sk ON sk.id = l.skill_id',
    item: jsonObject([
      ['user', userRef('ku')],
      ['skill', idName('sk')],
      ['score', json('l.score')],
      ['justification', json('l.justification')],
    ]),
    order: 'ku.id, sk.name, sk.id',
  },
} satisfies Record<string, Relation>;

type RelationName = keyof typeof RELATIONS;

/** The JSON array of relation `name` of record `r`. */
function relation(name: RelationName): string {
  const rel: Relation = RELATIONS[name];
  const also = rel.also ? ` AND ${rel.also('r')}` : '';
  return jsonArray(rel.item, rel.order, `${rel.from} WHERE l.recording_id = r.id${also}`);
}

/** A string of a stored JSON document, as JSON text, when it is one. */
const storedString = (value: string) => `CASE WHEN jsonb_typeof(${value}) = 'string' THEN (${value})::text END`;

/** Only the documented participant fields, each only when recorded as a string; `kind` defaults to external. */
const PARTICIPANT = `concat('{', concat_ws(',',
    '"display_name":' || ${storedString("e.p->'display_name'")},
    '"email":' || ${storedString("e.p->'email'")},
    '"phone":' || ${storedString("e.p->'phone'")},
    '"kind":' || coalesce(nullif(e.p->'kind', 'null'), '"external"')::text), '}')`;

const storedValue = (value: string) => `coalesce((${value})::text, 'null')`;

/**
 * A meeting's bot history as stored (a JSON array, in the capture system's order), each instant
 * written again by the one serializer of date-times (`iso`): whatever precision a writer
 * stored, the answer has six fractional digits.
 */
const BOT_ENTRY = jsonObject([
  ['code', storedValue("h.entry->'code'")],
  ['subcode', storedValue("h.entry->'subcode'")],
  ['occurred_at', json(iso("(h.entry->>'occurred_at')::timestamptz"))],
]);

/** The record's JSON text: the one definition of a meeting's or a call's wire format. */
function documentOf(kind: RecordingKind): string {
  const evaluationStatus = `coalesce(ev.status, 'not_started')`;
  const team = jsonObject([
    ['id', json('tm.public_id')],
    ['name', json('tm.name')],
    ['role', json('m.role')],
    ['is_default', json('m.is_default')],
  ]);
  return jsonObject([
    ['id', json('r.public_id')],
    ['object', json('r.kind')],
    ['title', json('r.title')],
    ['status', json('r.status')],
    ['type', json('r.media_type')],
    ['audience', json('r.audience')],
    ['meeting_at', json(iso('r.meeting_at'))],
    ['duration_seconds', json('r.duration_seconds')],
    ['no_show', json('r.no_show')],
    ['participants', jsonArray(PARTICIPANT, 'e.n', 'jsonb_array_elements(r.participants) WITH ORDINALITY AS e(p, n)')],
    [
      'owner',
      jsonObject([
        ['id', json('u.public_id')],
        ['name', json('u.name')],
        ['email', json('u.email')],
        [
          'team',
          `coalesce((SELECT ${team} FROM team_memberships m JOIN teams tm ON tm.id = m.team_id
            WHERE m.user_id = u.id ORDER BY m.is_default DESC, m.created_at, m.team_id LIMIT 1), 'null')`,
        ],
      ]),
    ],
    [
      'template',
      `CASE WHEN tpl.id IS NULL THEN 'null' ELSE ${jsonObject([
        ['id', json('tpl.public_id')],
        ['name', json('tpl.name')],
        ['answers', relation('template_answers')],
      ])} END`,
    ],
    ['tags', relation('tags')],
    [
      'customer_questions',
      jsonArray(
        jsonObject([
          ['question', storedValue("e.q->'question'")],
          ['category', storedValue("e.q->'category'")],
        ]),
        'e.n',
        'jsonb_array_elements(r.customer_questions) WITH ORDINALITY AS e(q, n)',
      ),
    ],
    ['competitors', relation('competitors')],
    [
      'enablement',
      `CASE WHEN en.recording_id IS NULL THEN 'null' ELSE ${jsonObject([
        ['next_steps', json('en.next_steps')],
        ['meeting_type', json('en.meeting_type')],
        [
          'speaking_duration',
          jsonObject([
            ['users', relation('speaking_durations')],
            ['others_seconds', json('en.others_seconds')],
          ]),
        ],
      ])} END`,
    ],
    ['accounts', relation('accounts')],
    [
      'overall_evaluation',
      jsonObject([
        ['status', json(evaluationStatus)],
        ['justification', json(`CASE WHEN ${evaluationStatus} = 'not_started' THEN NULL ELSE ev.justification END`)],
      ]),
    ],
    ['skill_scores', relation('skill_scores')],
    [
      'transcript',
      jsonObject([
        ['available', json(`r.transcript_status = 'completed'`)],
        ['status', json('r.transcript_status')],
      ]),
    ],
    ...(kind === 'meeting'
      ? [
          [
            'bot_history',
            jsonArray(BOT_ENTRY, 'h.n', `jsonb_array_elements(coalesce(r.bot_history, '[]')) WITH ORDINALITY AS h(entry, n)`),
          ] as [string, string],
        ]
      : []),
    ['created_at', json(iso('r.created_at'))],
    ['updated_at', json(iso('r.updated_at'))],
  ]);
}

/**
 * The record `r` rendered now: its JSON text from the tables, one-to-one relations joined and
 * the rest aggregated per relation. About 0.1 ms of PostgreSQL per record: what the stored
 * documents save (docs/BENCHMARKS.md).
 */
const renderLive = (kind: RecordingKind) => `(SELECT ${documentOf(kind)}
    FROM users u
    LEFT JOIN templates tpl ON tpl.id = r.template_id
    LEFT JOIN recording_evaluations ev ON ev.recording_id = r.id
    LEFT JOIN recording_enablements en ON en.recording_id = r.id
    WHERE u.id = r.owner_id)`;

/** Built once: each statement text is the same string on every request (hashed and sent as it is). */
const LIVE: Record<RecordingKind, string> = { meeting: renderLive('meeting'), call: renderLive('call') };
const liveDocument = (kind: RecordingKind) => LIVE[kind];

/** A JSON string literal of ours (never input), as an SQL expression of JSON text. */
const literal = (text: string) => `'${JSON.stringify(text)}'`;

/** The evaluation `ev` has started (a row that says `not_started`, or none, has not). */
const EVALUATION_STARTED = `(ev.status IS NOT NULL AND ev.status <> 'not_started')`;

/** The overall evaluation of record `r`, as `GET …/evaluations/overall` answers it: before it started, only its status. */
function evaluationPart(): string {
  const once = (value: string) => `CASE WHEN ${EVALUATION_STARTED} THEN ${value} ELSE 'null' END`;
  return `(SELECT ${jsonObject([
    ['id', once(json('ev.public_id'))],
    ['object', literal('overall_meeting_evaluation')],
    ['meeting_id', json('r.public_id')],
    ['status', json(`coalesce(ev.status, 'not_started')`)],
    ['score', once(json('ev.score'))],
    ['justification', once(json('ev.justification'))],
    ['created_at', once(json(iso('ev.created_at')))],
    ['updated_at', once(json(iso('ev.updated_at')))],
  ])} FROM (SELECT) one LEFT JOIN recording_evaluations ev ON ev.recording_id = r.id)`;
}

/** The answers (`a`) of record `r` to its template's questions (`q`). */
const ANSWERS_FROM =
  'template_questions q JOIN recording_answers a ON a.question_id = q.id AND a.recording_id = r.id WHERE q.template_id = r.template_id';

/** The answers of record `r` to its template's questions, in question order, as the `data` of `GET …/answers`. */
function answersPart(): string {
  return jsonArray(
    jsonObject([
      ['id', json('a.public_id')],
      ['object', literal('meeting_answer')],
      [
        'question',
        jsonObject([
          ['id', json('q.public_id')],
          ['text', json('q.text')],
          ['type', json('q.type')],
          ['order', json('q.position')],
        ]),
      ],
      ['answer', json('a.answer')],
      ['updated_at', json(iso('a.updated_at'))],
    ]),
    'q.position',
    ANSWERS_FROM,
  );
}

/** The transcript of record `r`, as `GET …/transcript` answers it: the enhanced variant when there is one; unavailable unless completed. */
function transcriptPart(): string {
  // Only what the contract allows, whatever the capture stored: utterances with their text and whole-millisecond times, a
  // speaker that is not a string null; times written as integers whatever their stored spelling (1500.0).
  const whole = (key: string) =>
    `CASE WHEN jsonb_typeof(u.e->'${key}') = 'number' THEN (u.e->>'${key}')::numeric = trunc((u.e->>'${key}')::numeric) ELSE false END`;
  const utterance = jsonObject([
    ['speaker', `coalesce(${storedString("u.e->'speaker'")}, 'null')`],
    ['text', "(u.e->'text')::text"],
    ['start_ms', "trunc((u.e->>'start_ms')::numeric)::text"],
    ['end_ms', "trunc((u.e->>'end_ms')::numeric)::text"],
  ]);
  const available = jsonObject([
    ['object', literal('transcript')],
    ['meeting_id', json('r.public_id')],
    ['available', `'true'`],
    ['status', json('r.transcript_status')],
    ['variant', json('t.variant')],
    [
      'utterances',
      jsonArray(
        utterance,
        'u.n',
        `jsonb_array_elements(CASE jsonb_typeof(t.utterances) WHEN 'array' THEN t.utterances ELSE '[]' END) WITH ORDINALITY AS u(e, n)
         WHERE CASE WHEN jsonb_typeof(u.e) = 'object' THEN jsonb_typeof(u.e->'text') = 'string' AND ${whole('start_ms')} AND ${whole('end_ms')} ELSE false END`,
      ),
    ],
    ['created_at', json(iso('t.created_at'))],
    ['updated_at', json(iso('t.updated_at'))],
  ]);
  const unavailable = jsonObject([
    ['object', literal('transcript')],
    ['meeting_id', json('r.public_id')],
    ['available', `'false'`],
    ['status', json('r.transcript_status')],
    ['variant', `'null'`],
    ['utterances', `'[]'`],
    ['created_at', `'null'`],
    ['updated_at', `'null'`],
  ]);
  return `coalesce((SELECT ${available} FROM transcripts t WHERE t.recording_id = r.id AND r.transcript_status = 'completed'
    ORDER BY t.variant = 'enhanced' DESC LIMIT 1), ${unavailable})`;
}

/**
 * Each part `include` can embed, rendered by PostgreSQL in the statement that reads the records
 * (so a page with its parts is one statement, and the service splices the text in unparsed);
 * the read model stores them beside the document (STORED_PARTS).
 * The parts' own routes answer the same text (partStatement): one definition of each shape.
 */
const PARTS: Record<RecordingPart, string> = { evaluation: evaluationPart(), answers: answersPart(), transcript: transcriptPart() };

/**
 * The ids the audit trail records for a part's route, as they always have been: the started
 * evaluation's id (else the record's), each answer's id in question order, the record's for the
 * transcript.
 */
const PART_RESOURCE_IDS: Record<RecordingPart, string> = {
  evaluation: `ARRAY[coalesce((SELECT ev.public_id FROM recording_evaluations ev
    WHERE ev.recording_id = r.id AND ${EVALUATION_STARTED}), r.public_id)]`,
  answers: `ARRAY(SELECT a.public_id FROM ${ANSWERS_FROM} ORDER BY q.position)`,
  transcript: 'ARRAY[r.public_id]',
};

/** What partStatement returns: the part's JSON text, and the ids its answer names. */
export interface RecordingPartRow {
  part: string;
  resource_ids: string[];
}

/** One part of the record `$3` (a public id) of company `$1` and kind `$2`, as its own route answers it; no row when there is no such record. */
export const partStatement = (part: RecordingPart) =>
  `SELECT ${PARTS[part]} AS part, ${PART_RESOURCE_IDS[part]} AS resource_ids
   FROM recordings r WHERE r.company_id = $1 AND r.kind = $2 AND r.public_id = $3`;

/**
 * Parts the read model stores beside the document, in its format: every part. The transcript was
 * rendered live (it is most of a record's bytes, and storing it doubles them), until a page of
 * 1,000-utterance transcripts proved to keep a core of PostgreSQL busy while it was read: a
 * company's heavy pages then took the CPU other companies' reads needed (bench:neighbours, #48).
 */
const STORED_PARTS: readonly RecordingPart[] = ['evaluation', 'answers', 'transcript'];

/**
 * The version of the wire format a stored document was written in: a hash of the statements
 * that render what the refresher stores (renderDocuments: the document of each kind and every
 * stored part), so any change to them (a new field, an escape, a part stored) makes every stored
 * document old at once. PostgreSQL renders the whole text and the service passes it through
 * unparsed, so nothing else decides it (unlike the conversations', whose presenters are code:
 * conversationChannel). A reader uses a document of its own format only, and renders the others
 * live; the refresher writes them again in its own (during a rolling deploy each side reads its own).
 */
export const DOCUMENT_FORMAT = createHash('sha256')
  .update([liveDocument('meeting'), liveDocument('call'), ...STORED_PARTS.map((p) => PARTS[p])].join('\n'))
  .digest()
  .readInt32BE(0);

/** What each statement returns per record: its keyset position, its public id and its JSON text; `included` when parts were asked. */
export interface RecordingDocumentRow {
  id: string;
  created_micros: string;
  public_id: string;
  document: string;
  /** The JSON text of the `included` object (the parts asked for), when the statement was asked for parts. */
  included?: string;
}

/**
 * The statement that answers the records chosen by `records` (a `SELECT r.* FROM recordings r
 * …` with its own WHERE, ORDER BY and LIMIT), in `(created_at, id)` order, the first `take` of
 * them when given (see documentsStatement): each record's stored
 * document (recording_documents, kept by the read model) when it is current and of this format,
 * else the record rendered live; with `parts`, their `included` object beside it. A write
 * invalidates a document in the writing transaction (the change capture's entries do it), so
 * no reader ever sees one older than the tables it reads.
 */
export function recordingDocuments(kind: RecordingKind, records: string, parts: readonly RecordingPart[] = [], take?: string): string {
  const key = `${kind}:${parts.join(',')}:${take ?? ''}:${records}`;
  let statement = STATEMENTS.get(key);
  if (!statement) {
    statement = documentsStatement(kind, records, parts, take);
    if (STATEMENTS.size >= 256) STATEMENTS.clear(); // a bounded set of shapes in practice; never unbounded
    STATEMENTS.set(key, statement);
  }
  return statement;
}

/** The statements built so far, by kind, parts and record selection. */
const STATEMENTS = new Map<string, string>();

/** Part `p` of the page's record `r`: stored (`d`) when current and of this format, else rendered live. */
const partOf = (p: RecordingPart) =>
  STORED_PARTS.includes(p) ? `coalesce(CASE WHEN d.format = ${DOCUMENT_FORMAT} THEN d.${p} END, ${PARTS[p]})` : PARTS[p];

/** The `included` object of `parts`, in the order `included` lists them. */
const includedOf = (parts: readonly RecordingPart[]) =>
  jsonObject(RECORDING_PARTS.filter((p) => parts.includes(p)).map((p) => [p, partOf(p)] as const));

/**
 * `take` (a placeholder), when the records come in this statement's order: only that many are
 * rendered. `records` reads up to its fetch size (limitClause: a few plan shapes), and PostgreSQL
 * evaluates the costly expressions of the select list (the live document, the parts) after the
 * LIMIT: a page of 51 renders 52 records, not the 101 its fetch size read.
 */
function documentsStatement(kind: RecordingKind, records: string, parts: readonly RecordingPart[], take?: string): string {
  return `WITH page AS MATERIALIZED (${records})
  SELECT r.id, ${micros('r.created_at')} AS created_micros, r.public_id,
    coalesce(CASE WHEN d.format = ${DOCUMENT_FORMAT} THEN d.document END, ${liveDocument(kind)}) AS document${
      parts.length
        ? `,
    ${includedOf(parts)} AS included`
        : ''
    }
  FROM page r LEFT JOIN recording_documents d ON d.recording_id = r.id
  ORDER BY r.created_at, r.id${take ? ` LIMIT ${take}` : ''}`;
}

/** The refresher's statement: the records of `kind` among the ids `$1`, rendered now, with their stored parts. */
export const renderDocuments = (kind: RecordingKind) =>
  `SELECT r.id, ${liveDocument(kind)} AS document, ${STORED_PARTS.map((p) => `${PARTS[p]} AS ${p}`).join(', ')}
   FROM recordings r WHERE r.id = ANY ($1::bigint[]) AND r.kind = '${kind}'`;
