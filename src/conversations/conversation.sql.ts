import { iso, micros } from '../database/sql';

/**
 * The statements email and chat share, over the tables of the channel each names: the
 * conversations with their stored documents (the read model, conversation_documents), and the
 * conversations and messages as a live rendering and the refresher read them.
 */

/** How a channel's tables are read: the conversation SELECT (alias `c`), the tables, the message columns (alias `m`). */
export interface ConversationTables {
  /** The channel's name in the read model (conversation_documents.channel) and the change feed. */
  channel: 'email' | 'chat';
  select: string;
  conversations: string;
  messages: string;
  messageColumns: string;
}

/** A message row's columns (alias `m`), all but `conversation_public_id`: MessageRowBase's, then the channel's. */
export const messageSelect = (tables: ConversationTables) =>
  `m.id, ${micros('m.sent_at')} AS position_micros, m.public_id, ${iso('m.sent_at')} AS sent_at, ${tables.messageColumns}`;

/** What a reader takes from the read model: the channel's format, and whether it wants the messages too. */
export interface StoredColumns {
  format: number;
  messages: boolean;
}

/**
 * The statement of StoredRows: the conversations `where` chooses (the conversation aliased `c`),
 * in `order` (of `c`), at most `limit`, each with its stored document when current, else its
 * live columns. The live columns are read for those rows only (a CASE on the joined document),
 * so a page of current documents reads no live column, and a page without reads them in the same
 * statement.
 */
export const storedStatement = (
  tables: ConversationTables,
  stored: StoredColumns,
  where: string,
  order: { inner: string; outer: string } | null,
  limit = '',
) => {
  // The document's condition in the select list, not in the join: the join stays a primary-key
  // lookup per row (with it in the join, PostgreSQL could pick the format index and read every
  // document of the format for a page of 100).
  const current = `d.format = ${Number(stored.format)} AND d.company_id = c.company_id`;
  return `SELECT p.id, p.position_micros, p.public_id, p.document${stored.messages ? ', p.messages_bytes, p.version' : ''},
    CASE WHEN p.document IS NULL THEN (SELECT row_to_json(l) FROM (${tables.select} WHERE c.id = p.id) l) END AS live
  FROM (
    SELECT c.id, c.last_message_at, c.public_id, ${micros('c.last_message_at')} AS position_micros,
      CASE WHEN ${current} THEN d.document END AS document${
        stored.messages
          ? `, CASE WHEN ${current} THEN octet_length(d.messages) END AS messages_bytes, CASE WHEN ${current} THEN d.xmin::text END AS version`
          : ''
      }
    FROM ${tables.conversations} c
    LEFT JOIN conversation_documents d ON d.channel = '${tables.channel}' AND d.conversation_id = c.id
    WHERE ${where}${order ? ` ORDER BY ${order.inner}` : ''} ${limit}
  ) p${order ? ` ORDER BY ${order.outer}` : ''}`;
};

/** The lists' order, and the export's (the public id's bytes). */
export const BY_ACTIVITY = { inner: 'c.last_message_at, c.id', outer: 'p.last_message_at, p.id' };
export const BY_ID = { inner: 'c.public_id COLLATE "C"', outer: 'p.public_id COLLATE "C"' };

/**
 * The conversations `ids` (internal), of company `companyId` (null: of any, for the refresher,
 * which reads as the schema owner), as their routes read them, in no particular order.
 */
export const conversationsByIdStatement = (tables: ConversationTables, ids: readonly string[], companyId: string | null) => ({
  text: `${tables.select} WHERE c.id = ANY ($1::bigint[])${companyId === null ? '' : ' AND c.company_id = $2'}`,
  values: companyId === null ? [ids] : [ids, companyId],
});

/**
 * The messages of `conversations` (their internal and public ids), in the conversations' order,
 * then in `(sent_at, id)` order (the messages table's `(conversation_id, sent_at, id)` index
 * serves each conversation's range), at most `limit` of them (null: every one), of company
 * `companyId` (null: of any, for the refresher). The public ids come with the ids, so no
 * conversation row is read again.
 */
export const messagesOfStatement = (
  tables: ConversationTables,
  conversations: ReadonlyArray<{ id: string; public_id: string }>,
  companyId: string | null,
  limit: number | null = null,
) => ({
  text: `SELECT ${messageSelect(tables)}, c.public_id AS conversation_public_id, m.conversation_id AS of_conversation
     FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS c (id, public_id, n)
     JOIN ${tables.messages} m ON m.conversation_id = c.id${companyId === null ? '' : ' AND m.company_id = $4'}
     ORDER BY c.n, m.sent_at, m.id
     LIMIT $3`,
  values: [conversations.map((c) => c.id), conversations.map((c) => c.public_id), limit, ...(companyId === null ? [] : [companyId])],
});
