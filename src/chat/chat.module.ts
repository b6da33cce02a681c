import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { ChatController } from './chat.controller';

@Module({
  imports: [ConversationsModule],
  controllers: [ChatController],
})
export class ChatModule {}
