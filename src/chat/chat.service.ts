import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { RequestStore } from '../common/http/request-context';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { ConversationsService } from '../conversations/conversations.service';
import { ChatConversationDto, ChatMessageDto } from './chat.dto';
import { CHAT_CHANNEL } from './chat.presenter';
import { ChatConversationRow, ChatMessageRow, ChatRepository } from './chat.repository';

/** Chat conversations: list, retrieve, and messages behind `chat.content.read`. */
@Injectable()
export class ChatService extends ConversationsService<ChatConversationRow, ChatMessageRow, ChatConversationDto, ChatMessageDto> {
  constructor(chats: ChatRepository, codec: CursorCodec, cls: ClsService<RequestStore>) {
    super(chats, CHAT_CHANNEL, codec, cls);
  }
}
