import { Module } from '@nestjs/common';
import { ChangeCompaction } from './change-compaction';
import { ChangesController } from './changes.controller';
import { ChangesRepository } from './changes.repository';
import { ChangesService } from './changes.service';

/** The change feed: `GET /v1/changes`, and the compaction of its log. */
@Module({ controllers: [ChangesController], providers: [ChangesRepository, ChangesService, ChangeCompaction] })
export class ChangesModule {}
