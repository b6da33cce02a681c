import { TimeIdPosition } from '../common/cursors/keyset-page';
import { iso, limitClause, micros, pageOf, Params } from '../database/sql';
import { TenantTransaction } from '../database/tenant-transaction';
import { ConversationStore, PositionedRow } from './conversations.service';
import { ListConversationsQuery } from './list-conversations.query';

/** The columns every message row starts with. */
export interface MessageRowBase {
  id: string;
  position_micros: string;
  public_id: string;
  conversation_public_id: string;
  sent_at: string;
}

/**
 * One page of conversations in `(last_message_at, id)` order. `select` reads the
 * conversations table aliased `c`; the activity index `(company_id, last_message_at, id)`
 * serves the order, the cursor and both filters, which are ranges on the order itself.
 */
export async function conversationsPage<C>(
  tenant: TenantTransaction,
  select: string,
  companyId: string,
  query: ListConversationsQuery,
  after: TimeIdPosition | null,
  take: number,
): Promise<C[]> {
  const p = new Params();
  const where = [`c.company_id = ${p.add(companyId)}`];
  if (query.last_message_after) where.push(`c.last_message_at > ${p.add(query.last_message_after.iso)}::timestamptz`);
  if (query.last_message_before) where.push(`c.last_message_at < ${p.add(query.last_message_before.iso)}::timestamptz`);
  if (after) where.push(p.after('c.last_message_at', 'c.id', after));
  const rows = await tenant.query<C>(
    `${select} WHERE ${where.join(' AND ')} ORDER BY c.last_message_at, c.id ${limitClause(take)}`,
    p.values,
  );
  return pageOf(rows, take);
}

/**
 * A conversation and one page of its messages in `(sent_at, id)` order, in one statement
 * served by the messages table's `(conversation_id, sent_at, id)` index. No row when the
 * company has no such conversation (null: 404); one row without a message when the page is
 * empty (an empty page).
 */
export async function messagesPage<M extends MessageRowBase>(
  tenant: TenantTransaction,
  tables: Pick<ConversationTables, 'conversations' | 'messages' | 'messageColumns'>,
  companyId: string,
  conversationPublicId: string,
  after: TimeIdPosition | null,
  take: number,
): Promise<M[] | null> {
  const p = new Params();
  const company = p.add(companyId);
  const conversation = p.add(conversationPublicId);
  const keyset = after ? `AND ${p.after('m.sent_at', 'm.id', after)}` : '';
  const rows = await tenant.query<M | { id: null }>(
    `SELECT page.*, c.public_id AS conversation_public_id
     FROM ${tables.conversations} c
     LEFT JOIN LATERAL (
       SELECT m.id, ${micros('m.sent_at')} AS position_micros, m.public_id, ${iso('m.sent_at')} AS sent_at, ${tables.messageColumns}
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

/** How a channel's tables are read: the conversation SELECT (alias `c`), the tables, the message columns (alias `m`). */
export interface ConversationTables {
  select: string;
  conversations: string;
  messages: string;
  messageColumns: string;
}

/**
 * A channel's repository: the three reads of ConversationStore over its tables, each one
 * statement inside the request's tenant transaction, each filtered by the company itself
 * (row-level security is the second wall).
 */
export abstract class ConversationsRepository<C extends PositionedRow, M extends MessageRowBase> implements ConversationStore<C, M> {
  protected constructor(
    private readonly tenant: TenantTransaction,
    private readonly tables: ConversationTables,
  ) {}

  listPage(companyId: string, query: ListConversationsQuery, after: TimeIdPosition | null, take: number): Promise<C[]> {
    return conversationsPage(this.tenant, this.tables.select, companyId, query, after, take);
  }

  async findOne(companyId: string, publicId: string): Promise<C | null> {
    const [row] = await this.tenant.query<C>(`${this.tables.select} WHERE c.company_id = $1 AND c.public_id = $2`, [companyId, publicId]);
    return row ?? null;
  }

  messagesPage(companyId: string, conversationPublicId: string, after: TimeIdPosition | null, take: number): Promise<M[] | null> {
    return messagesPage<M>(this.tenant, this.tables, companyId, conversationPublicId, after, take);
  }
}
