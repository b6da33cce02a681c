import { Module } from '@nestjs/common';
import { DocumentRefresher } from './document-refresher';
import { OwnerPoolModule } from '../database/owner-pool';
import { CallsController, MeetingsController } from './recordings.controller';
import { RecordingsRepository } from './recordings.repository';
import { RecordingsService } from './recordings.service';

/** Meetings and calls: one service and repository, two thin controllers. */
@Module({
  controllers: [MeetingsController, CallsController],
  providers: [RecordingsRepository, RecordingsService],
  exports: [RecordingsRepository, RecordingsService],
})
export class RecordingsModule {}

/** The read model's refresher (recording_documents): what `documents:refresh` and the worker's loop use. */
@Module({ imports: [OwnerPoolModule], providers: [DocumentRefresher], exports: [DocumentRefresher] })
export class DocumentsModule {}
