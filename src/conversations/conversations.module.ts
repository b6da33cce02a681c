import { Module } from '@nestjs/common';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';

/** The implementation email and chat share; each channel's module declares its controller. */
@Module({
  providers: [ConversationsRepository, ConversationsService],
  exports: [ConversationsService, ConversationsRepository],
})
export class ConversationsModule {}
