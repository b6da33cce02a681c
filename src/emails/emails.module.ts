import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { EmailsController } from './emails.controller';

@Module({
  imports: [ConversationsModule],
  controllers: [EmailsController],
})
export class EmailsModule {}
