import { conversationsController } from '../conversations/conversations.controller';
import { CHAT_CHANNEL } from './chat-channel';

/** `GET /v1/chat`, `GET /v1/chat/{chat_id}`, `GET /v1/chat/{chat_id}/messages`, `GET /v1/chat/{chat_id}/messages/{message_id}`. */
export const ChatController = conversationsController(CHAT_CHANNEL);
