import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { keysetPage, openTimeIdCursor, Page, TimeIdPosition } from '../common/cursors/keyset-page';
import { ApiError } from '../common/errors/api-error';
import { principalOf, RequestStore } from '../common/http/request-context';
import { IdKind, parseId } from '../common/ids/public-id';
import { ConversationChannel } from './conversation-channel';
import { ConversationsRepository, MessageRowBase, PositionedRow } from './conversations.repository';
import { ListConversationsQuery, ListMessagesQuery } from './list-conversations.query';

/**
 * Email and chat conversations: the same four reads, told by each call which channel they
 * serve. Lists follow `(last_message_at, id)`, so a conversation whose latest message moves
 * forward during a traversal comes again after the cursor instead of being skipped; messages
 * follow `(sent_at, id)` with a cursor bound to their conversation; a message read by id is
 * presented as its page shows it.
 */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly codec: CursorCodec,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  async list<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    query: ListConversationsQuery,
  ): Promise<Page<CD>> {
    const company = principalOf(this.cls).companyId;
    const binding = { route: channel.listRoute, company, filters: query.filters() };
    const after = openTimeIdCursor(this.codec, query.cursor, binding);
    const rows = await this.conversations.listPage<C>(channel.tables, company, query, after, query.limit + 1);
    return keysetPage(rows, query.limit, positionOf, (page) => page.map((r) => channel.present(r)), this.codec, binding);
  }

  async get<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    id: string,
  ): Promise<CD> {
    const row = await this.conversations.findOne<C>(channel.tables, principalOf(this.cls).companyId, this.publicId(channel.idKind, id));
    if (!row) throw ApiError.notFound();
    return channel.present(row);
  }

  async messages<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    id: string,
    query: ListMessagesQuery,
  ): Promise<Page<MD>> {
    const company = principalOf(this.cls).companyId;
    // The binding names the conversation as the client addressed it, so a cursor is checked
    // (400) before the conversation is looked up (404), in the documented order of checks.
    const binding = { route: channel.messagesRoute, company, filters: {}, parent: id };
    const after = openTimeIdCursor(this.codec, query.cursor, binding);
    const rows = await this.conversations.messagesPage<M>(
      channel.tables,
      company,
      this.publicId(channel.idKind, id),
      after,
      query.limit + 1,
    );
    if (!rows) throw ApiError.notFound();
    return keysetPage(rows, query.limit, positionOf, (page) => page.map((r) => channel.presentMessage(r)), this.codec, binding);
  }

  /** One message of a conversation; another conversation's message, even of the same company, is not found. */
  async message<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    id: string,
    messageId: string,
  ): Promise<MD> {
    const row = await this.conversations.findMessage<M>(
      channel.tables,
      principalOf(this.cls).companyId,
      this.publicId(channel.idKind, id),
      this.publicId(channel.messageIdKind, messageId),
    );
    if (!row) throw ApiError.notFound();
    return channel.presentMessage(row);
  }

  /** A malformed id, or one of another collection, is simply not found. */
  private publicId(kind: IdKind, id: string): string {
    const parsed = parseId(kind, id);
    if (!parsed) throw ApiError.notFound();
    return parsed;
  }
}

const positionOf = (row: PositionedRow): TimeIdPosition => [row.position_micros, row.id];
