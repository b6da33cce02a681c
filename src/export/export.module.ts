import { Module } from '@nestjs/common';
import { ChangesRepositoryModule } from '../changes/changes-repository.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { HealthModule } from '../health/health.module';
import { RecordingsModule } from '../recordings/recordings.module';
import { ExportBatches } from './export-batches';
import { ExportMetrics } from './export-metrics';
import { ExportController } from './export.controller';
import { ExportService } from './export.service';

/** `GET /v1/export`: the NDJSON stream of a whole company from one snapshot. */
@Module({
  imports: [RecordingsModule, ConversationsModule, HealthModule, ChangesRepositoryModule],
  controllers: [ExportController],
  providers: [ExportService, ExportBatches, ExportMetrics],
})
export class ExportModule {}
