import { Injectable } from '@nestjs/common';
import { TimeIdPosition } from '../common/cursors/keyset-page';
import { limitClause, pageOf, Params } from '../database/sql';
import { TenantTransaction } from '../database/tenant-transaction';
import {
  BY_ACTIVITY,
  BY_ID,
  ConversationTables,
  conversationsByIdStatement,
  messageSelect,
  messagesOfStatement,
  StoredColumns,
  storedStatement,
} from './conversation.sql';
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

/** A row's place in its keyset order, as its cursors carry it. */
export const positionOf = (row: PositionedRow): TimeIdPosition => [row.position_micros, row.id];

/**
 * A conversation as a page or an export reads it: its keyset position, and either its stored JSON
 * text from the read model (conversation_documents), when it is current and of the reader's
 * format (`document`, with the size of its stored messages when they were asked), or, when it is
 * not, its row as a live rendering reads it (`live`, the channel's conversation columns).
 */
export interface StoredRow extends PositionedRow {
  document: string | null;
  /** The size of its stored messages' text, in bytes, when the messages were asked (read apart: storedMessages). */
  messages_bytes?: number | null;
  /** The stored row's version (its `xmin`) when the messages were asked: storedMessages reads that version's messages only. */
  version?: string | null;
  /** Its columns as `tables.select` reads them, when `document` is null. */
  live: PositionedRow | null;
}

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
  async listPage(
    tables: ConversationTables,
    companyId: string,
    query: ListConversationsQuery,
    after: TimeIdPosition | null,
    take: number,
    stored: StoredColumns,
  ): Promise<StoredRow[]> {
    const p = new Params();
    const where = [`c.company_id = ${p.add(companyId)}`];
    if (query.last_message_after) where.push(`c.last_message_at > ${p.add(query.last_message_after.iso)}::timestamptz`);
    if (query.last_message_before) where.push(`c.last_message_at < ${p.add(query.last_message_before.iso)}::timestamptz`);
    if (query.ids) where.push(`c.public_id = ANY (${p.add(query.ids)}::text[])`);
    if (after) where.push(p.after('c.last_message_at', 'c.id', after));
    const rows = await this.tenant.query<StoredRow>(
      storedStatement(tables, stored, where.join(' AND '), BY_ACTIVITY, limitClause(take)),
      p.values,
    );
    return pageOf(rows, take);
  }

  /** Up to `take` conversations of the company after `after` in id order (byte order), for the export stream. */
  async exportPage(
    tables: ConversationTables,
    companyId: string,
    after: string | null,
    take: number,
    stored: StoredColumns,
  ): Promise<StoredRow[]> {
    const rows = await this.tenant.query<StoredRow>(
      storedStatement(tables, stored, `c.company_id = $1 AND c.public_id COLLATE "C" > $2`, BY_ID, limitClause(take)),
      [companyId, after ?? ''],
    );
    return pageOf(rows, take);
  }

  async findOne(tables: ConversationTables, companyId: string, publicId: string, stored: StoredColumns): Promise<StoredRow | null> {
    const [row] = await this.tenant.query<StoredRow>(storedStatement(tables, stored, 'c.company_id = $1 AND c.public_id = $2', null), [
      companyId,
      publicId,
    ]);
    return row ?? null;
  }

  /**
   * The stored messages (JSON array text) of `rows` (their internal ids and the versions their
   * documents were read in), by id, when their row is still that version: a write since the page
   * was read (a list's statements each see the database afresh) emptied it, or the refresher wrote
   * it again, and its messages would not be those of the document read. Absent then: rendered live.
   */
  async storedMessages(
    tables: ConversationTables,
    companyId: string,
    rows: ReadonlyArray<{ id: string; version?: string | null }>,
  ): Promise<Map<string, string>> {
    const found = await this.tenant.query<{ id: string; messages: string }>(
      `SELECT d.conversation_id AS id, d.messages FROM unnest($2::bigint[], $3::text[]) AS v (id, version)
       JOIN conversation_documents d ON d.channel = $1 AND d.conversation_id = v.id AND d.xmin::text = v.version
       WHERE d.company_id = $4`,
      [tables.channel, rows.map((r) => r.id), rows.map((r) => r.version ?? null), companyId],
    );
    return new Map(found.map((r) => [r.id, r.messages]));
  }

  /** The conversations `ids` (internal) of the company, as their routes read them, in no particular order: those a reader renders live. */
  async byIds<C>(tables: ConversationTables, companyId: string, ids: readonly string[]): Promise<C[]> {
    const { text, values } = conversationsByIdStatement(tables, ids, companyId);
    return this.tenant.query<C>(text, values);
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
   * Up to `take` messages of one conversation (internal id) after `after`, in the messages
   * route's `(sent_at, id)` order: one range of the `(conversation_id, sent_at, id)` index, so a
   * conversation of 150,000 messages is read a slice at a time (EmbeddedMessages.bounded).
   */
  async messagesAfter<M extends MessageRowBase>(
    tables: ConversationTables,
    companyId: string,
    conversation: { id: string; public_id: string },
    after: TimeIdPosition | null,
    take: number,
  ): Promise<M[]> {
    const p = new Params();
    const where = [`m.conversation_id = ${p.add(conversation.id)}`, `m.company_id = ${p.add(companyId)}`];
    if (after) where.push(p.after('m.sent_at', 'm.id', after));
    // LIMIT as a parameter, unlike a page's (limitClause): equality on the index's first column
    // and its order leave one plan, the index range, whatever the limit, and one text serves
    // every slice size.
    return this.tenant.query<M>(
      `SELECT ${messageSelect(tables)}, ${p.add(conversation.public_id)}::text AS conversation_public_id
     FROM ${tables.messages} m WHERE ${where.join(' AND ')}
     ORDER BY m.sent_at, m.id LIMIT ${p.add(take)}`,
      p.values,
    );
  }

  /** The messages of `conversations` (messagesOfStatement), of the company, in one statement. */
  async messagesOf<M extends MessageRowBase>(
    tables: ConversationTables,
    companyId: string,
    conversations: ReadonlyArray<{ id: string; public_id: string }>,
    limit: number | null = null,
  ): Promise<Array<M & { of_conversation: string }>> {
    const { text, values } = messagesOfStatement(tables, conversations, companyId, limit);
    return this.tenant.query<M & { of_conversation: string }>(text, values);
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
