import { Module } from '@nestjs/common';
import { CaptureCheck } from './capture-check';
import { ChangeCompaction } from './change-compaction';
import { ChangesController } from './changes.controller';
import { ChangesRepositoryModule } from './changes-repository.module';
import { ChangesService } from './changes.service';

/** The change feed: `GET /v1/changes`, the compaction of its log, and the check at start that capture is on. */
@Module({
  imports: [ChangesRepositoryModule],
  controllers: [ChangesController],
  providers: [ChangesService, ChangeCompaction, CaptureCheck],
})
export class ChangesModule {}
