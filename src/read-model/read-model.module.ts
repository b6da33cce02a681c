import { Module } from '@nestjs/common';
import { CHAT_CHANNEL } from '../chat/chat-channel';
import { OwnerPool, OwnerPoolModule } from '../database/owner-pool';
import { EMAIL_CHANNEL } from '../emails/email-channel';
import { conversationDocumentRefresher } from './conversation-documents';
import { ReadModels } from './read-models';
import { recordingDocumentRefresher } from './recording-documents';

/** The read models' refreshers, as the worker and the CLI use them. */
@Module({
  imports: [OwnerPoolModule],
  providers: [
    {
      provide: ReadModels,
      useFactory: (pool: OwnerPool) =>
        new ReadModels([recordingDocumentRefresher(pool), conversationDocumentRefresher(pool, [EMAIL_CHANNEL, CHAT_CHANNEL])]),
      inject: [OwnerPool],
    },
  ],
  exports: [ReadModels],
})
export class ReadModelModule {}
