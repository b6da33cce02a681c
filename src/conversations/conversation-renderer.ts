import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { JsonText, withIncluded, withIncludedText } from '../common/http/json-text';
import { principalOf, RequestStore } from '../common/http/request-context';
import { ConversationChannel } from './conversation-channel';
import { ConversationsRepository, MessageRowBase, PositionedRow, StoredRow } from './conversations.repository';
import { Embedded, EmbeddedMessages, included, INCLUDED_BYTES } from './embedded-messages';
import { ConversationPart } from './list-conversations.query';

/**
 * Conversations as their list shows them, each its stored document when current, else rendered
 * live with the channel's presenters: what a page, a detail and the export render.
 */
@Injectable()
export class ConversationRenderer {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly embedded: EmbeddedMessages,
    private readonly cls: ClsService<RequestStore>,
  ) {}

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
   * at a time in the route's order, up to the bytes it may take (EmbeddedMessages.bounded). Slicing the stored
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
            .filter(
              (r) => r.document !== null && Buffer.byteLength(r.document) + (r.messages_bytes ?? 0) + INCLUDED_BYTES > bound.conversation,
            )
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
      sliced.set(row.id, await this.embedded.bounded(channel, company, row, bound.conversation - Buffer.byteLength(text) - INCLUDED_BYTES));
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
            included(this.embedded.fit(channel, company, row, all, bound.conversation - Buffer.byteLength(document.text) - INCLUDED_BYTES)),
          );
        });
      },
    };
  }
}

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

/** Conversations read now and rendered when `render` is called (ConversationRenderer.render). */
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
