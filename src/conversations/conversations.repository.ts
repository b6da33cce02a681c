import { Injectable } from '@nestjs/common';
import { TimeIdPosition } from '../common/cursors/keyset-page';
import { iso, limitClause, micros, pageOf, Params } from '../database/sql';
import { TenantTransaction } from '../database/tenant-transaction';
import { ListConversationsQuery } from './list-conversations.query';

/** A row in keyset order: its internal id and the microseconds of its order instant. */
export interface PositionedRow {
  id: string;
  position_micros: string;
  public_id: string;
}

/** The columns every message row starts with. */
export interface MessageRowBase extends PositionedRow {
  conversation_public_id: string;
  sent_at: string;
}

/** How a channel's tables are read: the conversation SELECT (alias `c`), the tables, the message columns (alias `m`). */
export interface ConversationTables {
  select: string;
  conversations: string;
  messages: string;
  messageColumns: string;
}

/** A message row's columns (alias `m`), all but `conversation_public_id`: MessageRowBase's, then the channel's. */
const messageSelect = (tables: ConversationTables) =>
  `m.id, ${micros('m.sent_at')} AS position_micros, m.public_id, ${iso('m.sent_at')} AS sent_at, ${tables.messageColumns}`;

/**
 * Reads of email and chat conversations and their messages, over the tables of the channel
 * each call names: each one statement inside the request's tenant transaction, each filtered
 * by the company itself (row-level security is the second wall).
 */
@Injectable()
export class ConversationsRepository {
  constructor(private readonly tenant: TenantTransaction) {}

  /**
   * `take` conversations after `after` in `(last_message_at, id)` order, matching the filters.
   * The activity index `(company_id, last_message_at, id)` serves the order, the cursor and both
   * filters, which are ranges on the order itself.
   */
  async listPage<C>(
    tables: ConversationTables,
    companyId: string,
    query: ListConversationsQuery,
    after: TimeIdPosition | null,
    take: number,
  ): Promise<C[]> {
    const p = new Params();
    const where = [`c.company_id = ${p.add(companyId)}`];
    if (query.last_message_after) where.push(`c.last_message_at > ${p.add(query.last_message_after.iso)}::timestamptz`);
    if (query.last_message_before) where.push(`c.last_message_at < ${p.add(query.last_message_before.iso)}::timestamptz`);
    if (query.ids) where.push(`c.public_id = ANY (${p.add(query.ids)}::text[])`);
    if (after) where.push(p.after('c.last_message_at', 'c.id', after));
    const rows = await this.tenant.query<C>(
      `${tables.select} WHERE ${where.join(' AND ')} ORDER BY c.last_message_at, c.id ${limitClause(take)}`,
      p.values,
    );
    return pageOf(rows, take);
  }

  /** Up to `take` conversations of the company after `after` in id order (byte order), for the export stream. */
  async exportPage<C extends { public_id: string }>(
    tables: ConversationTables,
    companyId: string,
    after: string | null,
    take: number,
  ): Promise<C[]> {
    const rows = await this.tenant.query<C>(
      `${tables.select} WHERE c.company_id = $1 AND c.public_id COLLATE "C" > $2 ORDER BY c.public_id COLLATE "C" ${limitClause(take)}`,
      [companyId, after ?? ''],
    );
    return pageOf(rows, take);
  }

  async findOne<C>(tables: ConversationTables, companyId: string, publicId: string): Promise<C | null> {
    const [row] = await this.tenant.query<C>(`${tables.select} WHERE c.company_id = $1 AND c.public_id = $2`, [companyId, publicId]);
    return row ?? null;
  }

  /**
   * A conversation and `take` of its messages after `after` in `(sent_at, id)` order, in one
   * statement served by the messages table's `(conversation_id, sent_at, id)` index. Null when
   * the company has no such conversation (404); an empty page when it has no message after
   * `after` (the conversation's row comes without one).
   */
  async messagesPage<M extends MessageRowBase>(
    tables: ConversationTables,
    companyId: string,
    conversationPublicId: string,
    after: TimeIdPosition | null,
    take: number,
    ids?: readonly string[],
  ): Promise<M[] | null> {
    const p = new Params();
    const company = p.add(companyId);
    const conversation = p.add(conversationPublicId);
    const keyset = [
      after ? `AND ${p.after('m.sent_at', 'm.id', after)}` : '',
      ids ? `AND m.public_id = ANY (${p.add(ids)}::text[])` : '',
    ].join(' ');
    const rows = await this.tenant.query<M | { id: null }>(
      `SELECT page.*, c.public_id AS conversation_public_id
     FROM ${tables.conversations} c
     LEFT JOIN LATERAL (
       SELECT ${messageSelect(tables)}
       FROM ${tables.messages} m
       WHERE m.conversation_id = c.id AND m.company_id = c.company_id ${keyset}
       ORDER BY m.sent_at, m.id ${limitClause(take)}
     ) page ON true
     WHERE c.company_id = ${company} AND c.public_id = ${conversation}
     ORDER BY page.position_micros::bigint, page.id`,
      p.values,
    );
    if (!rows.length) return null;
    return pageOf(
      rows.filter((r): r is M => r.id !== null),
      take,
    );
  }

  /**
   * Every message of a conversation (by its internal id, read from a row of this company), in the
   * messages route's order: what `include=messages` embeds.
   */
  /**
   * The messages of `conversations` (their internal and public ids), in one statement: in the
   * conversations' order, then in `(sent_at, id)` order (the messages table's
   * `(conversation_id, sent_at, id)` index serves each conversation's range), at most `limit` of
   * them (null: every one). The public ids come with the ids, so no conversation row is read again.
   */
  async messagesOf<M extends MessageRowBase>(
    tables: ConversationTables,
    companyId: string,
    conversations: ReadonlyArray<{ id: string; public_id: string }>,
    limit: number | null = null,
  ): Promise<Array<M & { of_conversation: string }>> {
    return this.tenant.query<M & { of_conversation: string }>(
      `SELECT ${messageSelect(tables)}, c.public_id AS conversation_public_id, m.conversation_id AS of_conversation
     FROM unnest($2::bigint[], $3::text[]) WITH ORDINALITY AS c (id, public_id, n)
     JOIN ${tables.messages} m ON m.conversation_id = c.id AND m.company_id = $1
     ORDER BY c.n, m.sent_at, m.id
     LIMIT $4`,
      [companyId, conversations.map((c) => c.id), conversations.map((c) => c.public_id), limit],
    );
  }

  /**
   * One message of a conversation, as a page of messages shows it, in one statement served by
   * the messages table's unique `public_id` index (then the conversation's primary key). Null
   * when the company has no such message in that conversation: absent, of another company, or
   * of another of its conversations (all 404).
   */
  async findMessage<M extends MessageRowBase>(
    tables: ConversationTables,
    companyId: string,
    conversationPublicId: string,
    messagePublicId: string,
  ): Promise<M | null> {
    const [row] = await this.tenant.query<M>(
      `SELECT ${messageSelect(tables)}, c.public_id AS conversation_public_id
     FROM ${tables.messages} m
     JOIN ${tables.conversations} c ON c.id = m.conversation_id AND c.company_id = m.company_id
     WHERE m.company_id = $1 AND m.public_id = $2 AND c.public_id = $3`,
      [companyId, messagePublicId, conversationPublicId],
    );
    return row ?? null;
  }
}
