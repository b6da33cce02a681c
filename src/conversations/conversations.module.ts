import { Module } from '@nestjs/common';
import { ConversationRenderer } from './conversation-renderer';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import { EmbeddedMessages } from './embedded-messages';

/** The implementation email and chat share; each channel's module declares its controller. */
@Module({
  providers: [ConversationsRepository, EmbeddedMessages, ConversationRenderer, ConversationsService],
  exports: [ConversationsService, ConversationsRepository, ConversationRenderer],
})
export class ConversationsModule {}
