import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { byteLength, keysetPage, openTimeIdCursor, Page, TimeIdPosition } from '../common/cursors/keyset-page';
import { AuthErrors } from '../auth/auth-errors';
import { AppConfig } from '../config/app-config';
import { ApiError } from '../common/errors/api-error';
import { principalOf, RequestStore } from '../common/http/request-context';
import { IdKind, parseId } from '../common/ids/public-id';
import { ConversationChannel } from './conversation-channel';
import { ConversationsRepository, MessageRowBase, PositionedRow } from './conversations.repository';
import { ConversationPart, GetConversationQuery, ListConversationsQuery, ListMessagesQuery } from './list-conversations.query';

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
    private readonly config: AppConfig,
  ) {}

  async list<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    query: ListConversationsQuery,
  ): Promise<Page<CD>> {
    const company = principalOf(this.cls).companyId;
    const parts = this.parts(channel, query.include);
    const binding = { route: channel.listRoute, company, filters: query.filters() };
    const after = openTimeIdCursor(this.codec, query.cursor, binding);
    const rows = await this.conversations.listPage<C>(channel.tables, company, query, after, query.limit + 1);
    const conversations = await this.documents(channel, rows.slice(0, query.limit), parts, this.config.pageBytesMax);
    return keysetPage(rows, query.limit, positionOf, () => conversations, this.codec, binding, this.config.pageBytesMax);
  }

  async get<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    id: string,
    query: GetConversationQuery = {},
  ): Promise<CD> {
    const parts = this.parts(channel, query.include);
    const row = await this.conversations.findOne<C>(channel.tables, principalOf(this.cls).companyId, this.publicId(channel.idKind, id));
    if (!row) throw ApiError.notFound();
    const [conversation] = await this.documents(channel, [row], parts, Infinity);
    return conversation;
  }

  /**
   * The conversations as the list shows them, with every message when `include=messages` (the
   * export stream writes these lines too); messages are read no further than `maxBytes` of
   * conversations (see `included`). Runs in the current tenant transaction.
   */
  async documents<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    rows: C[],
    parts: readonly ConversationPart[],
    maxBytes: number,
  ): Promise<CD[]> {
    const messages = await this.included(channel, parts, rows, maxBytes);
    return rows.map((r) => withMessages(channel.present(r), messages.get(r.id)));
  }

  /** The parts asked for, once the token is checked for what each part's own route needs (messages: the content scope). */
  parts<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    include: readonly ConversationPart[] | undefined,
  ): readonly ConversationPart[] {
    if (include?.includes('messages') && !principalOf(this.cls).scopes.includes(channel.contentScope)) {
      throw AuthErrors.insufficientScope([channel.scope, channel.contentScope]);
    }
    return include ?? [];
  }

  /**
   * Every message of each conversation, presented as the messages route presents them, by the
   * conversation's internal id: read one conversation at a time, in the page's order, and no
   * further once the conversations read pass `maxBytes` (keysetPage cuts the page there: the
   * conversations after it were never served, so never needed their messages).
   */
  private async included<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    parts: readonly ConversationPart[],
    rows: C[],
    maxBytes: number,
  ): Promise<Map<string, MD[]>> {
    const byId = new Map<string, MD[]>();
    if (!parts.includes('messages')) return byId;
    const company = principalOf(this.cls).companyId;
    let bytes = 0;
    for (const row of rows) {
      const messages = (await this.conversations.allMessages<M>(channel.tables, company, row.id)).map((m) => channel.presentMessage(m));
      byId.set(row.id, messages);
      bytes += byteLength(withMessages(channel.present(row), messages)) + 1;
      if (bytes > maxBytes) break;
    }
    return byId;
  }

  async messages<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    id: string,
    query: ListMessagesQuery,
  ): Promise<Page<MD>> {
    const company = principalOf(this.cls).companyId;
    // The binding names the conversation as the client addressed it, so a cursor is checked
    // (400) before the conversation is looked up (404), in the documented order of checks.
    const binding = { route: channel.messagesRoute, company, filters: { ids: query.ids?.join(',') }, parent: id };
    const after = openTimeIdCursor(this.codec, query.cursor, binding);
    const rows = await this.conversations.messagesPage<M>(
      channel.tables,
      company,
      this.publicId(channel.idKind, id),
      after,
      query.limit + 1,
      query.ids,
    );
    if (!rows) throw ApiError.notFound();
    return keysetPage(
      rows,
      query.limit,
      positionOf,
      (page) => page.map((r) => channel.presentMessage(r)),
      this.codec,
      binding,
      this.config.pageBytesMax,
    );
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

/** The conversation with `included.messages` as its last property, when they were asked for. */
function withMessages<CD, MD>(conversation: CD, messages: MD[] | undefined): CD {
  return messages === undefined ? conversation : { ...conversation, included: { messages } };
}
