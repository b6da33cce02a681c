import { COLLECTION_SCOPES } from '../contract/scopes';
import { conversationChannel } from '../conversations/conversation-channel';
import { ChatConversationEnvelope, ChatConversationListEnvelope, ChatMessageEnvelope, ChatMessageListEnvelope } from './chat.dto';
import * as presenters from './chat.presenter';
import { presentChatConversation, presentChatMessage } from './chat.presenter';
import { CHAT_TABLES } from './chat.sql';

/** Chat conversations, the one descriptor of the channel: `GET /v1/chat`, `/v1/chat/{chat_id}`, its messages and one message. */
export const CHAT_CHANNEL = conversationChannel({
  idKind: 'chatConversation',
  path: 'v1/chat',
  idParam: 'chat_id',
  messageIdKind: 'chatMessage',
  tag: 'Chat',
  operationNoun: 'Chat',
  noun: 'chat conversation',
  scope: COLLECTION_SCOPES.chat.read,
  contentScope: COLLECTION_SCOPES.chat.content,
  contentPolicy: 'chat_content',
  schemas: {
    single: ChatConversationEnvelope,
    list: ChatConversationListEnvelope,
    messages: ChatMessageListEnvelope,
    message: ChatMessageEnvelope,
  },
  tables: CHAT_TABLES,
  present: presentChatConversation,
  presentMessage: presentChatMessage,
  presenters,
});
