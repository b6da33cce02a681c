import { ConversationChannel } from '../conversations/conversation-channel';
import { conversationsByIdStatement, messagesOfStatement } from '../conversations/conversation.sql';
import { MessageRowBase, PositionedRow } from '../conversations/conversations.repository';
import { presentedByConversation, renderConversation } from '../conversations/conversation-renderer';
import { OwnerPool, Sql } from '../database/owner-pool';
import { DocumentRefresher, ReadModelDescriptor } from './document-refresher';

/** Conversations one refresher transaction renders at most (each with all its messages). */
export const CONVERSATION_REFRESH_BATCH = 100;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyChannel = ConversationChannel<any, any, any, any>;

/**
 * A channel's part of the read model of conversations (conversation_documents, see its
 * migration): each document rendered with the channel's own presenters, exactly as a reader
 * renders it live.
 */
export const conversationDocuments = (channel: AnyChannel): ReadModelDescriptor => ({
  table: 'conversation_documents',
  key: 'conversation_id',
  format: channel.documentFormat,
  part: { column: 'channel', value: channel.tables.channel },
  source: channel.tables.conversations,
  async render(client: Sql, ids: string[]): Promise<number> {
    const documents = await renderStored(client, channel, ids);
    const { rowCount } = await client.query(
      `UPDATE conversation_documents d SET document = x.document, messages = x.messages, format = $4
       FROM unnest($1::bigint[], $2::text[], $3::text[]) x (id, document, messages)
       WHERE d.channel = $5 AND d.conversation_id = x.id`,
      [
        documents.map((d) => d.id),
        documents.map((d) => d.document),
        documents.map((d) => d.messages),
        channel.documentFormat,
        channel.tables.channel,
      ],
    );
    return rowCount ?? 0;
  },
});

/** The refresher of the conversations' documents, a batch over the channels in turn. */
export const conversationDocumentRefresher = (db: OwnerPool, channels: readonly AnyChannel[]) =>
  new DocumentRefresher(db, channels.map(conversationDocuments), CONVERSATION_REFRESH_BATCH);

/**
 * The conversations `ids` of `channel` as a reader renders them live (renderConversation): the
 * conversation's JSON text, and its messages' as `include=messages` embeds them. Conversations
 * gone meanwhile are not among them.
 */
async function renderStored(
  client: Sql,
  channel: AnyChannel,
  ids: string[],
): Promise<Array<{ id: string; document: string; messages: string }>> {
  const conversations = await client.query<PositionedRow>(conversationsByIdStatement(channel.tables, ids, null));
  const messages = await client.query<MessageRowBase & { of_conversation: string }>(
    messagesOfStatement(channel.tables, conversations.rows, null),
  );
  const byConversation = presentedByConversation(channel, conversations.rows, messages.rows);
  return conversations.rows.map((row) => ({
    id: row.id,
    document: renderConversation(channel, row).text,
    messages: JSON.stringify(byConversation.get(row.id)),
  }));
}
