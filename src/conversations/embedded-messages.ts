import { Injectable } from '@nestjs/common';
import { CursorBinding, CursorCodec } from '../common/cursors/cursor-codec';
import { TimeIdPosition } from '../common/cursors/keyset-page';
import { idSetBinding } from '../common/validation/query-params';
import { ConversationChannel } from './conversation-channel';
import { ConversationsRepository, MessageRowBase, positionOf, PositionedRow } from './conversations.repository';

/**
 * A conversation's messages as `include=messages` embeds them within the bytes it may take: the
 * first ones, and `messages_next_cursor`, the cursor the messages route would answer after the
 * last one embedded, so a client reads the rest there.
 */
@Injectable()
export class EmbeddedMessages {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly codec: CursorCodec,
  ) {}

  /**
   * The first messages of conversation `row` whose JSON fits `bytes` (at least one), read a slice
   * at a time in the messages route's order, each slice sized from the bytes the messages so far
   * took, and the route's cursor after the last one when more follow: never the whole
   * conversation in memory when it shows a part.
   */
  async bounded<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
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
        if (messages.length > 0 && used + size > bytes) return { messages, next: this.cursor(channel, company, row, after!) };
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
  fit<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
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
      if (used > bytes && i > 0) return { messages, next: this.cursor(channel, company, row, positionOf(rows[i - 1])) };
      messages.push(presented);
    }
    return { messages, next: null };
  }

  /** The cursor the messages route answers after the message at `position`: the same binding, the same position. */
  private cursor<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
    channel: ConversationChannel<C, M, CD, MD>,
    company: string,
    row: { public_id: string },
    position: TimeIdPosition,
  ): string {
    return this.codec.seal(messagesBinding(channel, company, row.public_id), position);
  }
}

/** The binding of a conversation's messages cursors: one definition for the route and what embeds its messages. */
export function messagesBinding<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
  channel: ConversationChannel<C, M, CD, MD>,
  company: string,
  conversationId: string,
  ids?: readonly string[],
): CursorBinding {
  return { route: channel.messagesRoute, company, filters: { ids: idSetBinding(ids) }, parent: conversationId };
}

/** A conversation's messages as embedded: the first ones, and the messages route's cursor after them when more follow. */
export interface Embedded<MD> {
  messages: MD[];
  next: string | null;
}

/** The `included` object of a conversation's embedded messages. */
export const included = <MD>(embedded: Embedded<MD>) => ({ messages: embedded.messages, messages_next_cursor: embedded.next });

/** `,"included":{"messages":[],"messages_next_cursor":"cur_…"}` around the messages: a cursor is under 200 bytes. */
export const INCLUDED_BYTES = 256;
/** Messages of a large conversation read by the first slice, before their sizes are known. */
const FIRST_SLICE = 100;
/** At most this many messages of a large conversation read by one statement. */
const MAX_SLICE = 2000;
