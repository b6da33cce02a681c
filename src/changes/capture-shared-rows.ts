/**
 * The capture of the shared rows (shared-rows.ts) and of the writes that change how they are
 * shown: each logs the records and conversations that show them, `updated` with `details`.
 */
import {
  CapturedTable,
  captured,
  conversationOf,
  eachOperation,
  FeedObject,
  noteCreated,
  notNoted,
  objectRow,
  parts,
  record,
  RECORD,
} from './capture-builders';
import { Op, touched } from './capture-transition-rows';
import { SHARED_ROWS } from './shared-rows';

const DETAILS = parts(['details']);

/** An object as its alias names it, `updated` with `changed`. */
const updated = (object: FeedObject, changed = DETAILS) => objectRow(object.alias, object.type(object.alias), 'updated', changed);

/** Records, emails and chats that show the users of `users` (a query of `company_id, id`). */
const showingUsers = (users: string) => `SELECT ${updated(RECORD)}
  FROM recordings r WHERE (r.company_id, r.owner_id) IN (${users})
UNION SELECT ${updated(RECORD)}
  FROM recordings r JOIN recording_speaking_durations d ON d.recording_id = r.id
  WHERE (d.company_id, d.user_id) IN (${users})
UNION SELECT ${updated(RECORD)}
  FROM recordings r JOIN recording_skill_scores s ON s.recording_id = r.id
  WHERE (s.company_id, s.user_id) IN (${users})
UNION SELECT ${updated(conversationOf('chat'))}
  FROM chat_conversations c WHERE (c.company_id, c.seller_id) IN (${users})
UNION SELECT ${updated(conversationOf('email'))}
  FROM email_conversations c JOIN email_conversation_mailboxes cm ON cm.conversation_id = c.id
  JOIN mailboxes mb ON mb.id = cm.mailbox_id
  WHERE (mb.company_id, mb.owner_id) IN (${users})`;

/** Records and conversations linked to the updated rows of a shared table through link tables (`link.column`). */
const linked = (table: string, links: Array<[link: string, column: string, object: FeedObject]>): CapturedTable => {
  const select = links
    .map(
      ([link, column, object]) => `SELECT ${updated(object)}
  FROM ${link} l JOIN ${object.table} ${object.alias} ON ${object.alias}.id = l.${object.column}
  WHERE (l.company_id, l.${column}) IN (SELECT company_id, id FROM new_rows)`,
    )
    .join('\nUNION ');
  // A shared row that itself attaches another one (a mailbox its owner): its INSERT logs nothing
  // (a new row is shown by nothing yet) but takes its locks (shared-rows.ts), so that a rename
  // of the other row waits for it or is seen by it.
  const insert = SHARED_ROWS.some((s) => s.attachedBy.some((a) => a.table === table));
  return captured(table, { ...(insert ? { INSERT: '-- Nothing to log.' } : {}), UPDATE: record(select) });
};

/** A team membership shows its user (with the team) wherever the user is shown; a new user's log nothing. */
const membershipsOf = (op: Op) => record(showingUsers(touched('company_id, user_id', op, notNoted('users', 'user_id'))));

/** Template questions: the records of the template, `details` and `answers`. */
const questionsOf = (op: Op) =>
  record(`SELECT ${updated(RECORD, parts(['details', 'answers']))}
  FROM recordings r WHERE (r.company_id, r.template_id) IN (${touched('company_id, template_id', op)})`);

/** The writes that re-show shared rows, then the shared tables themselves, in the order they are installed. */
export const SHARED_ROW_TABLES: CapturedTable[] = [
  eachOperation('template_questions', questionsOf),
  eachOperation('team_memberships', membershipsOf),
  captured('users', { INSERT: noteCreated('users'), UPDATE: record(showingUsers('SELECT company_id, id FROM new_rows')) }),
  captured('teams', {
    UPDATE: record(
      showingUsers(
        'SELECT m.company_id, m.user_id FROM team_memberships m WHERE (m.company_id, m.team_id) IN (SELECT company_id, id FROM new_rows)',
      ),
    ),
  }),
  captured('templates', {
    UPDATE: record(`SELECT ${updated(RECORD)}
  FROM recordings r WHERE (r.company_id, r.template_id) IN (SELECT company_id, id FROM new_rows)`),
  }),
  linked('tags', [['recording_tags', 'tag_id', RECORD]]),
  linked('competitors', [['recording_competitors', 'competitor_id', RECORD]]),
  linked('skills', [['recording_skill_scores', 'skill_id', RECORD]]),
  linked('accounts', [
    ['recording_accounts', 'account_id', RECORD],
    ['email_conversation_accounts', 'account_id', conversationOf('email')],
    ['chat_conversation_accounts', 'account_id', conversationOf('chat')],
  ]),
  linked('mailboxes', [['email_conversation_mailboxes', 'mailbox_id', conversationOf('email')]]),
];
