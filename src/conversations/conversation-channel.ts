import { Type } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Scope } from '../contract/scopes';
import { ContentPolicyName } from '../contract/rate-limit-policies';
import { IdKind } from '../common/ids/public-id';
import { CollectionDescriptor, listRouteOf } from './collection-descriptor';
import { ConversationTables, messageSelect, MessageRowBase, PositionedRow } from './conversations.repository';

/**
 * One descriptor per conversation channel, holding everything that tells email from chat (the
 * layout: CollectionDescriptor): beyond what every collection has, its messages' id kind, scope,
 * policy, schemas and cursor binding, the tables and columns it reads (rows `C` and `M`) and its
 * wire format (the DTOs `CD` and `MD`).
 */
export interface ConversationChannel<C extends PositionedRow, M extends MessageRowBase, CD, MD> extends CollectionDescriptor {
  /** The kind of its messages' ids (`emsg_…`, `wamsg_…`). */
  messageIdKind: IdKind;
  /** Needed, with `scope`, to read the messages. */
  contentScope: Scope;
  /** The rate-limit policy that also governs the messages routes (the list and a message by id). */
  contentPolicy: ContentPolicyName;
  /** The envelopes of a conversation, a page of conversations, a page of messages and one message. */
  schemas: { single: Type; list: Type; messages: Type; message: Type };
  tables: ConversationTables;
  present(row: C): CD;
  presentMessage(row: M): MD;
  /** Route template of the messages: their cursors' route binding (with the conversation as parent). */
  messagesRoute: string;
  /**
   * Rows as the channel's statements may return them, every field set in one and every nullable
   * or odd one (a missing name, extra stored keys, a tombstone) in another: what they present as
   * is part of `documentFormat`, so a change to a presenter that shows in any of them changes it.
   */
  formatSamples: { conversations: C[]; messages: M[] };
  /**
   * The version of the wire format a stored document (conversation_documents) was written in: a
   * hash of what renders it (the statements that read the rows, and what the presenters make of
   * `formatSamples`), so a change to either makes every stored document of the channel old at
   * once. Readers use documents of their own format only; the refresher writes the others again
   * in its own. Computed from outputs, not from source text, so a service run from its build
   * and a CLI run from the sources agree.
   */
  documentFormat: number;
}

/** A channel's descriptor, with the cursors' route bindings derived from its path. */
export function conversationChannel<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
  channel: Omit<ConversationChannel<C, M, CD, MD>, 'listRoute' | 'messagesRoute' | 'documentFormat'>,
): ConversationChannel<C, M, CD, MD> {
  const documentFormat = createHash('sha256')
    .update(
      [
        channel.tables.select,
        messageSelect(channel.tables),
        JSON.stringify(channel.formatSamples.conversations.map((row) => channel.present(row))),
        JSON.stringify(channel.formatSamples.messages.map((row) => channel.presentMessage(row))),
      ].join('\n'),
    )
    .digest()
    .readInt32BE(0);
  return {
    ...channel,
    listRoute: listRouteOf(channel.path),
    messagesRoute: `GET /${channel.path}/{${channel.idParam}}/messages`,
    documentFormat,
  };
}
