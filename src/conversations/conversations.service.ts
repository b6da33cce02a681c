import { ClsService } from 'nestjs-cls';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { keysetPage, openTimeIdCursor, Page, TimeIdPosition } from '../common/cursors/keyset-page';
import { ApiError } from '../common/errors/api-error';
import { principalOf, RequestStore } from '../common/http/request-context';
import { IdKind, parseId } from '../common/ids/public-id';
import { ListConversationsQuery, ListMessagesQuery } from './list-conversations.query';

/** A row in keyset order: its internal id and the microseconds of its order instant. */
export interface PositionedRow {
  id: string;
  position_micros: string;
}

/** The reads a channel's repository provides, each one SQL statement inside the tenant transaction. */
export interface ConversationStore<C extends PositionedRow, M extends PositionedRow> {
  /** `take` conversations after `after` in `(last_message_at, id)` order, matching the filters. */
  listPage(companyId: string, query: ListConversationsQuery, after: TimeIdPosition | null, take: number): Promise<C[]>;
  findOne(companyId: string, publicId: string): Promise<C | null>;
  /** `take` messages after `after` in `(sent_at, id)` order; null when the company has no such conversation. */
  messagesPage(companyId: string, conversationPublicId: string, after: TimeIdPosition | null, take: number): Promise<M[] | null>;
}

/**
 * What distinguishes email from chat beyond its store: ids, routes (the cursors' bindings) and
 * wire format, rows `C` and `M` presented as the DTOs `CD` and `MD`.
 */
export interface ConversationChannel<C, M, CD, MD> {
  idKind: IdKind;
  listRoute: string;
  messagesRoute: string;
  present(row: C): CD;
  presentMessage(row: M): MD;
}

/**
 * Email and chat conversations: the same three reads over two channels. Lists follow
 * `(last_message_at, id)`, so a conversation whose latest message moves forward during a
 * traversal comes again after the cursor instead of being skipped; messages follow
 * `(sent_at, id)` with a cursor bound to their conversation.
 */
export abstract class ConversationsService<C extends PositionedRow, M extends PositionedRow, CD, MD> {
  protected constructor(
    private readonly store: ConversationStore<C, M>,
    private readonly channel: ConversationChannel<C, M, CD, MD>,
    private readonly codec: CursorCodec,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  async list(query: ListConversationsQuery): Promise<Page<CD>> {
    const company = principalOf(this.cls).companyId;
    const binding = { route: this.channel.listRoute, company, filters: query.filters() };
    const after = openTimeIdCursor(this.codec, query.cursor, binding);
    const rows = await this.store.listPage(company, query, after, query.limit + 1);
    return keysetPage(rows, query.limit, positionOf, (page) => page.map((r) => this.channel.present(r)), this.codec, binding);
  }

  async get(id: string): Promise<CD> {
    const row = await this.store.findOne(principalOf(this.cls).companyId, this.publicId(id));
    if (!row) throw ApiError.notFound();
    return this.channel.present(row);
  }

  async messages(id: string, query: ListMessagesQuery): Promise<Page<MD>> {
    const company = principalOf(this.cls).companyId;
    // The binding names the conversation as the client addressed it, so a cursor is checked
    // (400) before the conversation is looked up (404), in the documented order of checks.
    const binding = { route: this.channel.messagesRoute, company, filters: {}, parent: id };
    const after = openTimeIdCursor(this.codec, query.cursor, binding);
    const rows = await this.store.messagesPage(company, this.publicId(id), after, query.limit + 1);
    if (!rows) throw ApiError.notFound();
    return keysetPage(rows, query.limit, positionOf, (page) => page.map((r) => this.channel.presentMessage(r)), this.codec, binding);
  }

  /** A malformed id, or one of another collection, is simply not found. */
  private publicId(id: string): string {
    const parsed = parseId(this.channel.idKind, id);
    if (!parsed) throw ApiError.notFound();
    return parsed;
  }
}

const positionOf = (row: PositionedRow): TimeIdPosition => [row.position_micros, row.id];
