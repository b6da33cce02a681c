import { Module } from '@nestjs/common';
import { DocumentRefresher } from './document-refresher';
import { DocumentWorker } from './document-worker';
import { CallsController, MeetingsController } from './recordings.controller';
import { RecordingsRepository } from './recordings.repository';
import { RecordingsService } from './recordings.service';

/** Meetings and calls: one service and repository, two thin controllers. */
@Module({
  controllers: [MeetingsController, CallsController],
  providers: [RecordingsRepository, RecordingsService],
})
export class RecordingsModule {}

/** The read model's refresher (recording_documents): what `documents:refresh` and the worker use. */
@Module({ providers: [DocumentRefresher], exports: [DocumentRefresher] })
export class DocumentsModule {}

/** The refresher's loop, in the worker (in the API process with WEBHOOK_WORKER=1, or `npm run worker`). */
@Module({ imports: [DocumentsModule], providers: [DocumentWorker], exports: [DocumentWorker] })
export class DocumentWorkerModule {}
