import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { CursorBinding, CursorCodec } from '../common/cursors/cursor-codec';
import { keysetPage, openTimeIdCursor, Page, TimeIdPosition } from '../common/cursors/keyset-page';
import { AuthErrors } from '../auth/auth-errors';
import { AppConfig } from '../config/app-config';
import { ApiError } from '../common/errors/api-error';
import { JsonText, withIncluded, withIncludedText } from '../common/http/json-text';
import { principalOf, RequestStore } from '../common/http/request-context';
import { IdKind, parseId } from '../common/ids/public-id';
import { idSetBinding } from '../common/validation/query-params';
import { ConversationChannel } from './conversation-channel';
import { ConversationsRepository, MessageRowBase, PositionedRow, StoredColumns, StoredRow } from './conversations.repository';
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
      const rendering = await this.render(channel, group, parts, { messages: LIVE_MESSAGES, bytes: left, conversation: left });
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

  /**
   * `rows` (read with storedColumns) as the list shows them with `parts`, read now, rendered when
   * `render` is called (the export reads its next batch between the two, so the database and the
   * service work at the same time). A conversation whose stored document is current is its stored
   * text (and its stored messages, read now); the others are read and rendered live, their
   * messages no more than `bound.messages` of them. `count` says how many of the rows (from the
   * first) `render` renders: those whose stored messages fit `bound.bytes` and whose live
   * messages all fit `bound.messages`, and always at least the first; `gone`, which of them were
   * removed since `rows` were read (READ COMMITTED: a list's statements each see the database
   * afresh), left out of what `render` returns.
   *
   * One conversation is bounded too, by `bound.conversation` bytes (its text and its messages):
   * one whose messages would pass it carries as many as fit (at least one) and
   * `messages_next_cursor`, the cursor its messages route would answer after the last one
   * embedded. Such a conversation's messages are never read whole: its stored array (whose size
   * PostgreSQL knows without reading it) is left unread and its messages are read live, a slice
   * at a time in the route's order, up to the bytes it may take (`bounded`). Slicing the stored
   * array in SQL instead would read (detoast) the whole array for every slice: the 20,000
   * messages of a chat are 24 MiB, read again per slice, where a slice of the index reads only
   * the rows it shows.
   */
  async render<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    rows: StoredRow[],
    parts: readonly ConversationPart[],
    bound: RenderBound = UNBOUNDED,
  ): Promise<Rendering> {
    const company = principalOf(this.cls).companyId;
    const messages = parts.includes('messages');
    const large = new Set(
      messages
        ? rows
            .filter((r) => r.document !== null && Buffer.byteLength(r.document) + (r.messages_bytes ?? 0) + INCLUDED_BYTES > bound.conversation)
            .map((r) => r.id)
        : [],
    );
    let count = rows.length;
    if (messages && Number.isFinite(bound.bytes)) {
      let bytes = 0;
      const over = rows.findIndex((row) => (bytes += Math.min(row.messages_bytes ?? 0, bound.conversation)) > bound.bytes);
      if (over >= 0) count = Math.max(1, over);
    }
    rows = rows.slice(0, count);
    const storedRows = messages ? rows.filter((r) => r.document !== null) : [];
    const unread = storedRows.filter((r) => !large.has(r.id));
    const stored = unread.length ? await this.conversations.storedMessages(channel.tables, company, unread) : new Map<string, string>();
    // Rendered live: those without a current document (their columns came with them), and those
    // whose stored row changed since the page was read (emptied or written again: read again now).
    const liveRows = new Map<string, C>(rows.filter((r) => r.live).map((r) => [r.id, r.live as C]));
    const stale = unread.filter((r) => !stored.has(r.id));
    for (const row of stale.length
      ? await this.conversations.byIds<C>(
          channel.tables,
          company,
          stale.map((r) => r.id),
        )
      : []) {
      liveRows.set(row.id, row);
    }
    // Removed since the page was read (a list reads each statement afresh): not shown.
    const gone = new Set(stale.filter((r) => !liveRows.has(r.id)).map((r) => r.id));
    const live = rows.filter((r) => liveRows.has(r.id));
    let liveMessages: Array<M & { of_conversation: string }> = [];
    if (messages && live.length) {
      const max = bound.messages;
      const bounded = Number.isFinite(max);
      const listed = live.map((r) => ({ id: r.id, public_id: r.public_id }));
      liveMessages = await this.conversations.messagesOf<M>(channel.tables, company, listed, bounded ? max + 1 : null);
      if (bounded && liveMessages.length > max) {
        // The conversation of the message past the bound may be incomplete: every row before it is whole.
        const partial = live.find((r) => r.id === liveMessages[max].of_conversation)!;
        count = rows.indexOf(partial);
        const before = liveMessages.findIndex((m) => m.of_conversation === partial.id);
        // The first one alone is larger than the bound: read a slice at a time, as a large stored one.
        if (count === 0) [count, liveMessages] = [1, (large.add(partial.id), [])];
        else liveMessages = liveMessages.slice(0, before);
      }
    }
    const whole = rows.slice(0, count).filter((row) => !gone.has(row.id));
    const sliced = new Map<string, Embedded<MD>>();
    for (const row of whole.filter((r) => large.has(r.id))) {
      const text = liveRows.has(row.id) ? JSON.stringify(channel.present(liveRows.get(row.id)!)) : row.document!;
      sliced.set(row.id, await this.bounded(channel, company, row, bound.conversation - Buffer.byteLength(text) - INCLUDED_BYTES));
    }
    return {
      count,
      gone,
      render: () => {
        const byConversation = new Map<string, M[]>(live.map((r) => [r.id, []]));
        for (const message of liveMessages) byConversation.get(message.of_conversation)!.push(message);
        return whole.map((row) => {
          const document = liveRows.has(row.id)
            ? new JsonText(JSON.stringify(channel.present(liveRows.get(row.id)!)), row.public_id)
            : new JsonText(row.document!, row.public_id);
          if (!messages) return document;
          if (sliced.has(row.id)) return withIncluded(document, included(sliced.get(row.id)!));
          if (!liveRows.has(row.id)) return withIncludedText(document, `{"messages":${stored.get(row.id)},"messages_next_cursor":null}`);
          const all = byConversation.get(row.id)!;
          return withIncluded(
            document,
            included(this.fit(channel, company, row, all, bound.conversation - Buffer.byteLength(document.text) - INCLUDED_BYTES)),
          );
        });
      },
    };
  }

  /**
   * The first messages of conversation `row` whose JSON fits `bytes` (at least one), read a slice
   * at a time in the messages route's order, each slice sized from the bytes the messages so far
   * took, and the route's cursor after the last one when more follow: never the whole
   * conversation in memory when it shows a part.
   */
  private async bounded<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    company: string,
    row: { id: string; public_id: string },
    bytes: number,
  ): Promise<Embedded<MD>> {
    const messages: MD[] = [];
    let used = 0;
    let after: TimeIdPosition | null = null;
    let take = FIRST_SLICE;
    for (;;) {
      // One more than fits by the estimate: it tells whether another follows.
      const slice = await this.conversations.messagesAfter<M>(channel.tables, company, row, after, take + 1);
      for (const message of slice) {
        const presented = channel.presentMessage(message);
        const size = Buffer.byteLength(JSON.stringify(presented)) + 1;
        if (messages.length > 0 && used + size > bytes) return { messages, next: this.messagesCursor(channel, company, row, after!) };
        messages.push(presented);
        used += size;
        after = positionOf(message);
      }
      if (slice.length <= take) return { messages, next: null };
      // The message past the estimate was kept: it fit, and more follow it.
      take = Math.max(1, Math.min(MAX_SLICE, Math.ceil((bytes - used) / (used / messages.length))));
    }
  }

  /** A conversation's messages (read whole, within the live bound), presented, as `bounded` would embed them in `bytes`. */
  private fit<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    company: string,
    row: { public_id: string },
    rows: readonly M[],
    bytes: number,
  ): Embedded<MD> {
    const messages: MD[] = [];
    let used = 0;
    for (const [i, message] of rows.entries()) {
      const presented = channel.presentMessage(message);
      used += Buffer.byteLength(JSON.stringify(presented)) + 1;
      if (used > bytes && i > 0) return { messages, next: this.messagesCursor(channel, company, row, positionOf(rows[i - 1])) };
      messages.push(presented);
    }
    return { messages, next: null };
  }

  /** The binding of a conversation's messages cursors: one definition for the route and what embeds its messages. */
  private messagesBinding<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    company: string,
    conversationId: string,
    ids?: readonly string[],
  ): CursorBinding {
    return { route: channel.messagesRoute, company, filters: { ids: idSetBinding(ids) }, parent: conversationId };
  }

  /** The cursor the messages route answers after the message at `position`: the same binding, the same position. */
  private messagesCursor<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    company: string,
    row: { public_id: string },
    position: TimeIdPosition,
  ): string {
    return this.codec.seal(this.messagesBinding(channel, company, row.public_id), position);
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
    const binding = this.messagesBinding(channel, company, id, query.ids);
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

/** What a reader of `channel` with `parts` takes from the read model. */
export const storedColumns = <C extends PositionedRow, M extends MessageRowBase, CD, MD>(
  channel: ConversationChannel<C, M, CD, MD>,
  parts: readonly ConversationPart[],
): StoredColumns => ({ format: channel.documentFormat, messages: parts.includes('messages') });

/** A conversation as its list shows it, rendered once as JSON text; with `messages`, they are its `included.messages`. */
export function renderConversation<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
  channel: ConversationChannel<C, M, CD, MD>,
  row: C,
  messages?: MD[],
): JsonText {
  return withIncluded(new JsonText(JSON.stringify(channel.present(row)), row.public_id), messages && { messages });
}

/** The messages of `conversations`, presented, by conversation id (each conversation listed, with none if it has none). */
export function presentedByConversation<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
  channel: ConversationChannel<C, M, CD, MD>,
  conversations: ReadonlyArray<{ id: string }>,
  messages: ReadonlyArray<M & { of_conversation: string }>,
): Map<string, MD[]> {
  const byConversation = new Map<string, MD[]>(conversations.map((c) => [c.id, []]));
  for (const message of messages) byConversation.get(message.of_conversation)!.push(channel.presentMessage(message));
  return byConversation;
}

/** Conversations read now and rendered when `render` is called (ConversationsService.render). */
export interface Rendering {
  /** How many of the rows, from the first, were read (those removed meanwhile included). */
  count: number;
  /** The ids of those removed since the rows were read: not rendered. */
  gone: Set<string>;
  render: () => JsonText[];
}

/** How far `render` reads: the messages (live) and bytes (stored messages) of its rows together, and one conversation's bytes. */
export interface RenderBound {
  messages: number;
  bytes: number;
  conversation: number;
}

const UNBOUNDED: RenderBound = { messages: Infinity, bytes: Infinity, conversation: Infinity };

/** A conversation's messages as embedded: the first ones, and the messages route's cursor after them when more follow. */
interface Embedded<MD> {
  messages: MD[];
  next: string | null;
}

const included = <MD>(embedded: Embedded<MD>) => ({ messages: embedded.messages, messages_next_cursor: embedded.next });

/** `,"included":{"messages":[],"messages_next_cursor":"cur_…"}` around the messages: a cursor is under 200 bytes. */
const INCLUDED_BYTES = 256;
/** Messages of a large conversation read by the first slice, before their sizes are known. */
const FIRST_SLICE = 100;
/** At most this many messages of a large conversation read by one statement. */
const MAX_SLICE = 2000;
/** Live messages one statement of a list reads at most (a first conversation with more is read a slice at a time). */
const LIVE_MESSAGES = 2000;

/** Conversations whose messages the first statement reads, before their sizes are known. */
const FIRST_READ = 10;
/** About how many bytes of conversations one statement reads when the budget is larger (the export's, a detail's). */
const READ_BYTES = 4 * 1024 * 1024;
