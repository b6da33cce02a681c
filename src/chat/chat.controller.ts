import { ID_PREFIX } from '../common/ids/public-id';
import { conversationsController } from '../conversations/conversations.controller';
import { ChatConversationEnvelope, ChatConversationListEnvelope, ChatMessageListEnvelope } from './chat.dto';
import { ChatService } from './chat.service';

/** `GET /v1/chat`, `GET /v1/chat/{chat_id}`, `GET /v1/chat/{chat_id}/messages`. */
export const ChatController = conversationsController({
  tag: 'Chat',
  operationNoun: 'Chat',
  path: 'v1/chat',
  idParam: 'chat_id',
  idPrefix: ID_PREFIX.chatConversation,
  noun: 'chat conversation',
  scope: 'chat.read',
  contentScope: 'chat.content.read',
  contentPolicy: 'chat_content',
  service: ChatService,
  schemas: { single: ChatConversationEnvelope, list: ChatConversationListEnvelope, messages: ChatMessageListEnvelope },
});
