import { Type } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Scope } from '../contract/scopes';
import { ContentPolicyName } from '../contract/rate-limit-policies';
import { IdKind } from '../common/ids/public-id';
import { CollectionDescriptor, listRouteOf } from './collection-descriptor';
import { ConversationTables, conversationsByIdStatement, messagesOfStatement } from './conversation.sql';
import { MessageRowBase, PositionedRow } from './conversations.repository';
import { codeText, presenterCode } from './presenter-code';

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
   * The module of `present` and `presentMessage`, whose every function (the helpers they call
   * among them: a presenter module declares nothing it does not export) is part of `documentFormat`.
   */
  presenters: object;
  /**
   * The version of the wire format a stored document (conversation_documents) was written in: a
   * hash of everything that renders it, the statements the refresher reads the rows with and the
   * code of the presenters (presenterCode: their source without its layout, so a service run
   * from its build, a CLI run from the sources and the tests agree), so any change to either,
   * whichever rows it shows in, makes every stored document of the channel old at once. Readers
   * use documents of their own format only; the refresher writes the others again in its own.
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
        conversationsByIdStatement(channel.tables, [], null).text,
        messagesOfStatement(channel.tables, [], null).text,
        `present=${codeText(channel.present)}`,
        `presentMessage=${codeText(channel.presentMessage)}`,
        presenterCode(channel.presenters),
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
