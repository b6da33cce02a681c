import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { keysetPage, openTimeIdCursor, Page } from '../common/cursors/keyset-page';
import { AuthErrors } from '../auth/auth-errors';
import { AppConfig } from '../config/app-config';
import { ApiError } from '../common/errors/api-error';
import { JsonText } from '../common/http/json-text';
import { principalOf, RequestStore } from '../common/http/request-context';
import { IdKind, parseId } from '../common/ids/public-id';
import { ConversationChannel } from './conversation-channel';
import { ConversationRenderer } from './conversation-renderer';
import { StoredColumns } from './conversation.sql';
import { ConversationsRepository, MessageRowBase, positionOf, PositionedRow, StoredRow } from './conversations.repository';
import { messagesBinding } from './embedded-messages';
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
    private readonly renderer: ConversationRenderer,
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
    for (;;) {
      const rows = await this.conversations.listPage(channel.tables, company, query, after, query.limit + 1, storedColumns(channel, parts));
      const { documents, gone } = await this.documents(channel, rows.slice(0, query.limit), parts, this.config.pageBytesMax);
      // Every row of the page removed meanwhile: read the page again (it starts further on).
      if (gone.size && !documents.length) continue;
      // The documents are those of the rows left, from the first: a page cut by the budget, as keysetPage expects.
      const shown = gone.size ? rows.filter((r) => !gone.has(r.id)) : rows;
      return keysetPage(shown, query.limit, positionOf, () => documents, this.codec, binding, this.config.pageBytesMax);
    }
  }

  async get<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    id: string,
    query: GetConversationQuery = {},
  ): Promise<JsonText> {
    const parts = this.parts(channel, query.include);
    const company = principalOf(this.cls).companyId;
    const row = await this.conversations.findOne(channel.tables, company, this.publicId(channel.idKind, id), storedColumns(channel, parts));
    if (!row) throw ApiError.notFound();
    const [conversation] = (await this.documents(channel, [row], parts, this.config.pageBytesMax)).documents;
    if (!conversation) throw ApiError.notFound(); // removed since it was read
    return conversation;
  }

  /**
   * The conversations as the list shows them, each as JSON text (measured against the budget and
   * served as that text), with every message when `include=messages`, as the messages route
   * presents them: the stored text of the read model where it is current, else rendered live
   * (see `render`). They are read in groups, one `render` each, each group sized from the bytes
   * the conversations so far took so that it reads about what the budget has left (or
   * READ_BYTES, whichever is less): a page of small conversations is one or two groups, and one
   * huge conversation is never read beside dozens of others. Once the conversations pass
   * `maxBytes`, no more are read and only that prefix of `rows` is returned: a page is cut there
   * anyway (keysetPage). `gone`: the rows removed since they were read, not among the documents.
   * Runs in the current tenant transaction.
   */
  async documents<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    rows: StoredRow[],
    parts: readonly ConversationPart[],
    maxBytes: number,
  ): Promise<{ documents: JsonText[]; gone: Set<string> }> {
    const documents: JsonText[] = [];
    const gone = new Set<string>();
    let bytes = 0;
    let size = FIRST_READ;
    for (let start = 0; start < rows.length && bytes <= maxBytes;) {
      const group = rows.slice(start, start + size);
      const left = maxBytes - bytes;
      const rendering = await this.renderer.render(channel, group, parts, { messages: LIVE_MESSAGES, bytes: left, conversation: left });
      for (const id of rendering.gone) gone.add(id);
      for (const document of rendering.render()) {
        documents.push(document);
        bytes += Buffer.byteLength(document.text) + 1;
        if (bytes > maxBytes) break;
      }
      start += rendering.count;
      const each = bytes / Math.max(1, documents.length);
      size = Math.max(1, Math.min(rows.length, Math.floor(Math.min(maxBytes - bytes, READ_BYTES) / each)));
    }
    return { documents, gone };
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
    const binding = messagesBinding(channel, company, id, query.ids);
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

/** What a reader of `channel` with `parts` takes from the read model. */
export const storedColumns = <C extends PositionedRow, M extends MessageRowBase, CD, MD>(
  channel: ConversationChannel<C, M, CD, MD>,
  parts: readonly ConversationPart[],
): StoredColumns => ({ format: channel.documentFormat, messages: parts.includes('messages') });

/** Live messages one statement of a list reads at most (a first conversation with more is read a slice at a time). */
const LIVE_MESSAGES = 2000;

/** Conversations whose messages the first statement reads, before their sizes are known. */
const FIRST_READ = 10;
/** About how many bytes of conversations one statement reads when the budget is larger (the export's, a detail's). */
const READ_BYTES = 4 * 1024 * 1024;
