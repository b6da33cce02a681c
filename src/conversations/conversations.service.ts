import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { keysetPage, openTimeIdCursor, Page, TimeIdPosition } from '../common/cursors/keyset-page';
import { AuthErrors } from '../auth/auth-errors';
import { AppConfig } from '../config/app-config';
import { ApiError } from '../common/errors/api-error';
import { JsonText, withIncluded } from '../common/http/json-text';
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
  ): Promise<Page<JsonText>> {
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
  ): Promise<JsonText> {
    const parts = this.parts(channel, query.include);
    const row = await this.conversations.findOne<C>(channel.tables, principalOf(this.cls).companyId, this.publicId(channel.idKind, id));
    if (!row) throw ApiError.notFound();
    const [conversation] = await this.documents(channel, [row], parts, Infinity);
    return conversation;
  }

  /**
   * The conversations as the list shows them, each rendered once as JSON text (measured against
   * the budget and served as that text), with every message when `include=messages`, presented
   * as the messages route presents them. Messages are read for groups of conversations, one
   * statement a group, each group sized from the bytes the conversations so far took so that it
   * reads about what the budget has left (or READ_BYTES, whichever is less): a page of small
   * conversations is one or two statements, and one huge conversation is never read beside
   * dozens of others. Once the rendered conversations pass `maxBytes`, no more are read and only
   * that prefix of `rows` is returned: a page is cut there anyway (keysetPage), and the export
   * continues after the last one returned. Runs in the current tenant transaction.
   */
  async documents<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    rows: C[],
    parts: readonly ConversationPart[],
    maxBytes: number,
  ): Promise<JsonText[]> {
    if (!parts.includes('messages')) return rows.map((row) => renderConversation(channel, row));
    const documents: JsonText[] = [];
    let bytes = 0;
    let size = FIRST_READ;
    for (let start = 0; start < rows.length && bytes <= maxBytes;) {
      const group = rows.slice(start, start + size);
      for (const document of (await this.withMessages(channel, group)).render()) {
        documents.push(document);
        bytes += Buffer.byteLength(document.text) + 1;
        if (bytes > maxBytes) break;
      }
      start += group.length;
      const each = bytes / documents.length;
      size = Math.max(1, Math.min(rows.length, Math.floor(Math.min(maxBytes - bytes, READ_BYTES) / each)));
    }
    return documents;
  }

  /**
   * The messages of `rows`, read now in one statement, no more than `maxMessages` of them: `count`
   * says how many of the rows (from the first) came whole, and `render` renders those with their
   * messages (as `documents` does) when called. A first conversation with more messages than
   * that is read alone, whole. The export reads its next batch between the two, so the database
   * and the service work at the same time.
   */
  async withMessages<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    rows: C[],
    maxMessages = Infinity,
  ): Promise<{ count: number; render: () => JsonText[] }> {
    const company = principalOf(this.cls).companyId;
    const bounded = Number.isFinite(maxMessages);
    let messages = await this.conversations.messagesOf<M>(channel.tables, company, rows, bounded ? maxMessages + 1 : null);
    let count = rows.length;
    if (bounded && messages.length > maxMessages) {
      // The conversation of the message past the bound may be incomplete: those before it are whole.
      count = rows.findIndex((row) => row.id === messages[maxMessages].of_conversation);
      if (count === 0) [count, messages] = [1, await this.conversations.messagesOf<M>(channel.tables, company, rows.slice(0, 1))];
      else
        messages = messages.slice(
          0,
          messages.findIndex((m) => m.of_conversation === rows[count].id),
        );
    }
    const whole = rows.slice(0, count);
    return {
      count,
      render: () => {
        const byConversation = new Map<string, MD[]>(whole.map((row) => [row.id, []]));
        for (const message of messages) byConversation.get(message.of_conversation)!.push(channel.presentMessage(message));
        return whole.map((row) => renderConversation(channel, row, byConversation.get(row.id)));
      },
    };
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

/** A conversation as its list shows it, rendered once as JSON text; with `messages`, they are its `included.messages`. */
export function renderConversation<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
  channel: ConversationChannel<C, M, CD, MD>,
  row: C,
  messages?: MD[],
): JsonText {
  return withIncluded(new JsonText(JSON.stringify(channel.present(row)), row.public_id), messages && { messages });
}

/** Conversations whose messages the first statement reads, before their sizes are known. */
const FIRST_READ = 10;
/** About how many bytes of conversations one statement reads when the budget is larger (the export's, a detail's). */
const READ_BYTES = 4 * 1024 * 1024;
