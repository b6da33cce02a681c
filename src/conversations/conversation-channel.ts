import { Type } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
  /** The file of `present` and `presentMessage` (and the helpers they call): its text is part of `documentFormat`. */
  presenterSource: string;
  /**
   * The version of the wire format a stored document (conversation_documents) was written in: a
   * hash of what renders it (the statements that read the rows, and the presenters' source), so
   * any change to them makes every stored document of the channel old at once. Readers use
   * documents of their own format only; the refresher writes the others again in its own.
   */
  documentFormat: number;
}

/** A channel's descriptor, with the cursors' route bindings derived from its path. */
export function conversationChannel<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
  channel: Omit<ConversationChannel<C, M, CD, MD>, 'listRoute' | 'messagesRoute' | 'documentFormat'>,
): ConversationChannel<C, M, CD, MD> {
  const documentFormat = createHash('sha256')
    .update([channel.tables.select, messageSelect(channel.tables), readFileSync(channel.presenterSource, 'utf8')].join('\n'))
    .digest()
    .readInt32BE(0);
  return {
    ...channel,
    listRoute: listRouteOf(channel.path),
    messagesRoute: `GET /${channel.path}/{${channel.idParam}}/messages`,
    documentFormat,
  };
}
