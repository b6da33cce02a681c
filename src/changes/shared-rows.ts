/**
 * The shared rows: rows that many records and conversations show (a user's name, a tag, an
 * account's domain…), and how the capture orders the writers that change them against the
 * writers that attach a record to them. The next reviewer checks this table, not a trigger:
 * the capture's triggers take their locks from it (byOperation, capture-builders.ts), and
 * `shared-rows.md` beside it is this table rendered (a unit test keeps the two equal; a medium
 * spec checks that every foreign key from a captured table to a shared one is listed).
 *
 * Why it is needed. Transaction T inserts a chat whose seller is user U; transaction R renames U.
 * The foreign key check takes `FOR KEY SHARE` on U and the rename `FOR NO KEY UPDATE`: nothing
 * conflicts. R's capture trigger looks for what shows U with its own snapshot, which cannot see
 * T's uncommitted chat, so no entry would tell a client (nor empty the stored document) that the
 * chat's seller is renamed. So:
 *
 * - **Attaching writes lock `FOR SHARE`** the shared rows they point at (an insert, or an update
 *   that points a row at another one), in the trigger, before anything is logged.
 * - **Re-showing writes lock `FOR NO KEY UPDATE`** the shared rows whose showing they change: the
 *   row's own UPDATE does by itself; a write that changes how another row is shown (a team
 *   renamed changes how its members are shown) locks those rows in its trigger, before it looks
 *   for what shows them.
 *
 * The two modes conflict, so one of T and R waits for the other to end, and the later one sees
 * the earlier one's rows:
 * - R waits for T: R's trigger runs its queries after the wait; at READ COMMITTED each takes a
 *   new snapshot, which sees T's chat, and logs it.
 * - T waits for R: T's trigger queries, and every later statement of T, see R's rename; the
 *   `created` entry makes a client read the chat after T commits, with the new name. A T at
 *   REPEATABLE READ or SERIALIZABLE gets a serialization failure instead (its snapshot cannot
 *   see R): retried, it sees R.
 * - R at REPEATABLE READ or SERIALIZABLE could not see T even after waiting (its snapshot is
 *   older than T's commit), and PostgreSQL does not fail a write to a row that was only locked:
 *   re-showing writes are therefore **refused at REPEATABLE READ and SERIALIZABLE**
 *   (`feature_not_supported`; run them at READ COMMITTED, PostgreSQL's default).
 *
 * Lock order: in a trigger, every shared row before any record or document, shared tables in the
 * order of SHARED_ROWS, rows by id; then the records app_record_changes logs (by id), then their
 * documents (app_record_changes, capture-shared-functions.ts), the order every writer of a record
 * takes them in.
 * Two transactions that take them across several statements in other orders can still deadlock:
 * PostgreSQL aborts one (`40P01`), and a capture writer retries it, as it retries serialization
 * failures (`40001`).
 */
import { OLD_AND_NEW, Op, rowsOf } from './capture-transition-rows';

/** A captured row pointing at a shared row: `table.column`. */
export interface Reference {
  table: string;
  column: string;
}

/** A write that changes how rows of a shared table are shown, other than an UPDATE of those rows themselves. */
export interface Reshowing {
  /** The table written. */
  table: string;
  /** The operations of that table that re-show. */
  ops: Op[];
  /** The shared rows re-shown, as ids: a query over the statement's transition rows (`rows`). */
  ids: (rows: string) => string;
  /** Said in the table. */
  how: string;
}

export interface SharedRow {
  table: string;
  /** What the routes show of it. */
  shownBy: string;
  /** The captured rows that point at it: inserting one, or updating one to point elsewhere, locks it FOR SHARE. */
  attachedBy: Reference[];
  /** The writes besides its own UPDATE that change how it is shown: each locks it FOR NO KEY UPDATE before looking for what shows it. */
  reshownBy: Reshowing[];
}

const ref = (table: string, column: string): Reference => ({ table, column });

/** `table`'s `ops` re-show the shared rows `ids` names, as `how` says. */
const reshowing = (table: string, ops: Op[], ids: Reshowing['ids'], how: string): Reshowing => ({ table, ops, ids, how });

/** Ids in a column of the written rows. */
const own = (column: string) => (rows: string) => `SELECT ${column} FROM ${rows}`;

/** Ids read through another table (`from`) whose `by` column points at the written rows. */
const through = (from: string, id: string, by: string) => (rows: string) =>
  `SELECT ${id} FROM ${from} WHERE ${by} IN (SELECT id FROM ${rows})`;

const shared = (table: string, shownBy: string, attachedBy: Reference[], reshownBy: Reshowing[] = []): SharedRow => ({
  table,
  shownBy,
  attachedBy,
  reshownBy,
});

const ALL: Op[] = ['INSERT', 'UPDATE', 'DELETE'];
const UPDATE: Op[] = ['UPDATE'];

/** A team's members; the mailboxes a user owns. */
const MEMBERS = through('team_memberships m', 'm.user_id', 'm.team_id');
const OWNED_MAILBOXES = through('mailboxes mb', 'mb.id', 'mb.owner_id');

/** The shared rows, in lock order. */
export const SHARED_ROWS: SharedRow[] = [
  shared('teams', 'a meeting’s or call’s owner: the owner’s team', [ref('team_memberships', 'team_id')]),
  shared(
    'users',
    'a meeting’s or call’s owner (with the team), its speakers (speaking durations) and skill-score users; a chat’s seller; an email’s mailbox owners',
    [
      ref('recordings', 'owner_id'),
      ref('recording_speaking_durations', 'user_id'),
      ref('recording_skill_scores', 'user_id'),
      ref('chat_conversations', 'seller_id'),
      ref('mailboxes', 'owner_id'),
    ],
    [
      reshowing('team_memberships', ALL, own('user_id'), 'a membership added, changed or removed changes its user’s team'),
      reshowing('teams', UPDATE, MEMBERS, 'a team renamed changes how its members are shown'),
    ],
  ),
  shared(
    'mailboxes',
    'an email’s mailboxes: the address and the owner',
    [ref('email_conversation_mailboxes', 'mailbox_id')],
    [reshowing('users', UPDATE, OWNED_MAILBOXES, 'a user renamed changes how the mailboxes they own are shown')],
  ),
  shared(
    'templates',
    'a meeting’s or call’s template (name, answers)',
    [ref('recordings', 'template_id')],
    [reshowing('template_questions', ALL, own('template_id'), 'a question added, changed or removed changes every record of its template')],
  ),
  shared('template_questions', 'a meeting’s or call’s answers: the question', [ref('recording_answers', 'question_id')]),
  shared('tags', 'a meeting’s or call’s tags', [ref('recording_tags', 'tag_id')]),
  shared('competitors', 'a meeting’s or call’s competitors', [ref('recording_competitors', 'competitor_id')]),
  shared('skills', 'a meeting’s or call’s skill scores', [ref('recording_skill_scores', 'skill_id')]),
  shared('accounts', 'the accounts of a meeting, call, email or chat', [
    ref('recording_accounts', 'account_id'),
    ref('email_conversation_accounts', 'account_id'),
    ref('chat_conversation_accounts', 'account_id'),
  ]),
];

/**
 * The parents, ordered otherwise. A part's entry names its record's kind and id, read by a join
 * that may run before a change of kind commits. app_record_changes locks the records it is about
 * to log `updated` (`FOR NO KEY UPDATE`, by id) and only then reads their kind and id, in a
 * statement of its own; a kind change holds its record until it commits. Conversations: what
 * their parts and messages read of them (public id, company) never changes (an id change is
 * refused) or changes through a key update, which the foreign keys' `FOR KEY SHARE` orders.
 */
export const PARENTS = [
  {
    table: 'recordings',
    shownBy: 'the kind and id its parts’ entries name (a meeting made a call takes a call id)',
    order: 'app_record_changes locks the record before it reads its kind and id again; a kind change holds the record until it commits',
  },
  {
    table: 'email_conversations, chat_conversations',
    shownBy: 'the conversation a message’s entry names',
    order: 'nothing to add: a conversation’s public id never changes (refused) and its company is in the foreign key',
  },
];

/** Whether a table has an `id` column of its own (its updates can be joined old to new). */
const WITH_ID = new Set(['recordings', 'chat_conversations', 'mailboxes', 'recording_skill_scores', 'recording_answers']);

/**
 * The ids a statement of `table` attaches through `column`: every new row's on INSERT; on UPDATE
 * only where the column changed (a record whose title changes attaches nothing), or every new
 * row's in a table without its own id.
 */
function attached(table: string, column: string, op: 'INSERT' | 'UPDATE'): string {
  if (op === 'INSERT' || !WITH_ID.has(table)) return `SELECT ${column} FROM new_rows`;
  return `SELECT n.${column} FROM ${OLD_AND_NEW} WHERE n.${column} IS DISTINCT FROM o.${column}`;
}

/** Whether a trigger of `table` on `op` re-shows shared rows (its own UPDATE included): it must run at READ COMMITTED. */
export function reshows(table: string, op: Op): boolean {
  return SHARED_ROWS.some(
    (shared) => (shared.table === table && op === 'UPDATE') || shared.reshownBy.some((r) => r.table === table && r.ops.includes(op)),
  );
}

/**
 * The statements a capture trigger of `table` on `op` runs first: the refusal below READ
 * COMMITTED for a re-showing write, then the locks of the shared rows, in SHARED_ROWS order and
 * by id within a table.
 */
export function sharedRowLocks(table: string, op: Op): string[] {
  const statements: string[] = [];
  if (reshows(table, op)) statements.push(`PERFORM app_require_read_committed('${table}');`);
  for (const shared of SHARED_ROWS) {
    const exclusive = shared.reshownBy
      .filter((r) => r.table === table && r.ops.includes(op))
      .flatMap((r) => rowsOf(op).map((rows) => r.ids(rows)));
    const share = op === 'DELETE' ? [] : shared.attachedBy.filter((a) => a.table === table).map((a) => attached(table, a.column, op));
    for (const [ids, mode] of [
      [exclusive, 'NO KEY UPDATE'],
      [share, 'SHARE'],
    ] as const) {
      if (!ids.length) continue;
      statements.push(`PERFORM 1 FROM ${shared.table} s WHERE s.id IN (${ids.join(' UNION ')}) ORDER BY s.id FOR ${mode};`);
    }
  }
  return statements;
}

/** The table as `shared-rows.md` holds it. */
export function renderSharedRows(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const lines = [
    '<!-- Rendered from src/changes/shared-rows.ts by `npm run capture:render`. Do not edit: edit shared-rows.ts. -->',
    '',
    '# Shared rows and how their writers are ordered',
    '',
    'A row many records show. A write that attaches a record to it locks it `FOR SHARE`; a write that',
    'changes how it is shown locks it `FOR NO KEY UPDATE` (its own UPDATE does by itself) and must run',
    'at READ COMMITTED. The two conflict: the later writer sees the earlier one. Locks are taken in',
    'this table’s order, by id within a table, before any record or document. See shared-rows.ts for why.',
    '',
    '| Shared row | Shown by | Attached by (`FOR SHARE`) | Re-shown by (`FOR NO KEY UPDATE`) |',
    '| --- | --- | --- | --- |',
    ...SHARED_ROWS.map((s) =>
      [
        `\`${s.table}\``,
        cell(s.shownBy),
        s.attachedBy.map((a) => `\`${a.table}.${a.column}\``).join(', '),
        [`its own UPDATE`, ...s.reshownBy.map((r) => `\`${r.table}\` ${r.ops.join('/')}: ${r.how}`)].join('; '),
      ].join(' | '),
    ).map((row) => `| ${row} |`),
    '',
    '| Parent | What its children’s entries show of it | How writers are ordered |',
    '| --- | --- | --- |',
    ...PARENTS.map((p) => `| \`${p.table}\` | ${cell(p.shownBy)} | ${cell(p.order)} |`),
    '',
  ];
  return lines.join('\n');
}
