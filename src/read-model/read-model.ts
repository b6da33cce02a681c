import { Injectable, Module } from '@nestjs/common';
import { CHAT_CHANNEL } from '../chat/chat-channel';
import { CONVERSATION_REFRESH_BATCH, ConversationDocumentRefresher } from '../conversations/conversation-document-refresher';
import { OwnerPool, OwnerPoolModule } from '../database/owner-pool';
import { RefreshRun, refreshInTurn } from '../database/read-model';
import { EMAIL_CHANNEL } from '../emails/email-channel';
import { DocumentRefresher, REFRESH_BATCH } from '../recordings/document-refresher';

/**
 * The read models together: meetings and calls (recording_documents) and e-mail and chat
 * conversations (conversation_documents), each kept by its own refresher. What the worker's
 * loop and `documents:refresh` run.
 */
@Injectable()
export class ReadModel {
  constructor(
    readonly recordings: DocumentRefresher,
    readonly conversations: ConversationDocumentRefresher,
  ) {}

  /**
   * Both, a batch of each in turn, until nothing waits in either (or `stop()` says so): a backlog
   * in one (a release that changed the recordings' format) never holds the other back.
   */
  async refreshAll(stop: () => boolean = () => false): Promise<RefreshRun> {
    return refreshInTurn(
      [
        { refreshBatch: (batch) => this.recordings.refreshBatch(batch), batch: REFRESH_BATCH },
        { refreshBatch: (batch) => this.conversations.refreshBatch(batch), batch: CONVERSATION_REFRESH_BATCH },
      ],
      stop,
    );
  }

  /** Adds an empty document for every record and conversation without one (written while the capture was off). */
  async addMissing(): Promise<number> {
    return (await this.recordings.addMissing()) + (await this.conversations.addMissing());
  }

  /** Documents waiting to be written. */
  async waiting(): Promise<number> {
    return (await this.recordings.waiting()) + (await this.conversations.waiting());
  }
}

/** The read models' refreshers, as the worker and the CLI use them. */
@Module({
  imports: [OwnerPoolModule],
  providers: [
    DocumentRefresher,
    {
      provide: ConversationDocumentRefresher,
      useFactory: (pool: OwnerPool) => new ConversationDocumentRefresher(pool, [EMAIL_CHANNEL, CHAT_CHANNEL]),
      inject: [OwnerPool],
    },
    ReadModel,
  ],
  exports: [ReadModel],
})
export class ReadModelModule {}
