import { Module } from '@nestjs/common';
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
