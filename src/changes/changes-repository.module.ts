import { Module } from '@nestjs/common';
import { ChangesRepository } from './changes.repository';

/**
 * The change log's reads, one instance for every module that imports this: `GET /v1/changes`,
 * the export and the webhook dispatcher. Apart from ChangesModule because the worker and the CLI
 * need the reads only, not the route, the compaction or the check at start that capture is on.
 */
@Module({ providers: [ChangesRepository], exports: [ChangesRepository] })
export class ChangesRepositoryModule {}
