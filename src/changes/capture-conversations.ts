/** The capture of e-mail and chat conversations, their parts and their messages: one shape, a channel. */
import {
  backWhereItWas,
  captured,
  CapturedTable,
  Channel,
  COMPANY_CHANGED,
  conversationOf,
  createdEntries,
  EPOCH,
  idKept,
  movedObjects,
  NOTHING,
  notCreatedHere,
  notNoted,
  objectPart,
  objectRow,
  objectTable,
  parts,
  record,
} from './capture-builders';
import { OLD_AND_NEW } from './capture-transition-rows';

/** A conversation's `messages` part, for the conversations of `rows` (a query of `company_id, conversation_id`); nothing for one created here. */
const messagesOf = (channel: Channel, rows: string, transition: string) =>
  `SELECT ${objectRow('c', `'${channel}'`, 'updated', parts(['messages']))}
  FROM (${rows}) t JOIN ${channel}_conversations c ON c.id = t.conversation_id AND c.company_id = t.company_id
  WHERE ${notCreatedHere('c', transition)}`;

/** A conversation: `details` when it changes; deleted and created when it moves to another company. */
const conversation = (channel: Channel) => {
  const object = conversationOf(channel);
  const moved = movedObjects(object, COMPANY_CHANGED);
  return objectTable(
    object,
    `${idKept('conversation', '')}
${record(`SELECT ${objectRow('n', object.type('n'), 'updated', parts(['details']))}
  FROM ${OLD_AND_NEW} WHERE n.company_id = o.company_id AND ${notNoted(object.table, 'n.id')}
${moved.rows}`)}
${moved.back}`,
  );
};

/** A conversation removed: its messages are told `deleted` now, while they are still there to name (the cascade that removes them next finds no conversation to join). */
export const conversationRemoved = (channel: Channel) =>
  `CREATE OR REPLACE FUNCTION app_changes_${channel}_conversation_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Locked first: a message another transaction is moving out is waited for, and then no longer
  -- matches (READ COMMITTED rechecks it; REPEATABLE READ fails with a serialization error), so
  -- only the messages the cascade really removes are told deleted.
  PERFORM 1 FROM ${channel}_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id FOR UPDATE;
  PERFORM app_record_changes(ARRAY(SELECT ${objectRow('m', `'${channel}_message'`, 'deleted', NOTHING, 'OLD')}
    FROM ${channel}_messages m WHERE m.conversation_id = OLD.id AND m.company_id = OLD.company_id));
  RETURN OLD;
END $$`;

/**
 * Where a moved message is now. A later transaction's entry for it (started after this one, it
 * wrote and committed before this move, so the move saw its row) sorts after this one's and names
 * the conversation the message was in then: a client that read it last would fetch the message
 * there, get 404 and drop a message that exists. Those entries cannot have been served yet (the
 * horizon is below this transaction), so they are made to name the conversation it is in now.
 */
const laterEntriesNameParent = (channel: Channel) => `UPDATE change_log c SET parent_id = p.public_id
  FROM ${OLD_AND_NEW}
    JOIN ${channel}_conversations p ON p.id = n.conversation_id AND p.company_id = n.company_id
  WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)
    AND c.company_id = n.company_id AND c.object = '${channel}_message' AND c.object_key = n.id
    AND (c.epoch, c.xid) > (${EPOCH}, pg_current_xact_id()) AND c.parent_id IS DISTINCT FROM p.public_id;`;

/**
 * Messages: the message (its parent: the conversation it is in now), and its conversations'
 * `messages` when it arrives, leaves, or moves from one conversation to another (both are told).
 * A message moved to another company is deleted there and created here.
 */
const message = (channel: Channel): CapturedTable => {
  const table = `${channel}_messages`;
  const conversations = `${channel}_conversations`;
  const object = `${channel}_message`;
  const row = (alias: string, action: string, changed: string) => objectRow(alias, `'${object}'`, action, changed, 'c');
  const parentOf = (alias: string) => `JOIN ${conversations} c ON c.id = ${alias}.conversation_id AND c.company_id = ${alias}.company_id`;
  const arrivals = (rows: string, transition: string) =>
    messagesOf(
      channel,
      `SELECT DISTINCT company_id, conversation_id FROM ${rows} WHERE ${notNoted(conversations, 'conversation_id')}`,
      transition,
    );
  const pairs = `FROM ${OLD_AND_NEW}`;
  return captured(table, {
    INSERT: `${createdEntries(`SELECT t.company_id, '${object}', t.public_id, t.id, c.public_id, 'created', ${EPOCH}
  FROM new_rows t ${parentOf('t')}`)}
${record(arrivals('new_rows', 'new_rows'))}`,
    DELETE: record(`SELECT ${row('t', 'deleted', NOTHING)} FROM old_rows t ${parentOf('t')}
UNION ALL ${arrivals('old_rows', 'old_rows')}`),
    UPDATE: `${idKept('message', '')}
${record(`SELECT ${row('n', 'updated', parts(['details']))}
  ${pairs} ${parentOf('n')} WHERE n.company_id = o.company_id
UNION ALL SELECT ${row('o', 'deleted', NOTHING)}
  ${pairs} ${parentOf('o')} WHERE n.company_id <> o.company_id
UNION ALL SELECT ${row('n', 'created', NOTHING)}
  ${pairs} ${parentOf('n')} WHERE n.company_id <> o.company_id
UNION ALL ${messagesOf(
  channel,
  `SELECT n.company_id, n.conversation_id ${pairs} WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)
    UNION SELECT o.company_id, o.conversation_id ${pairs} WHERE (n.company_id, n.conversation_id) <> (o.company_id, o.conversation_id)`,
  'new_rows',
)}`)}
${backWhereItWas(COMPANY_CHANGED, `'${object}'`)}
${laterEntriesNameParent(channel)}`,
  });
};

/** Per channel: the conversation, its parts, its messages, in the order they are installed. */
export const conversationTables = (channel: Channel): CapturedTable[] => [
  conversation(channel),
  ...(channel === 'email'
    ? ['email_conversation_mailboxes', 'email_participants', 'email_conversation_accounts']
    : ['chat_conversation_accounts']
  ).map((t) => objectPart(t, conversationOf(channel), ['details'])),
  message(channel),
];
