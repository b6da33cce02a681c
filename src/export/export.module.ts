import { Module } from '@nestjs/common';
import { ChangesRepository } from '../changes/changes.repository';
import { ConversationsModule } from '../conversations/conversations.module';
import { HealthModule } from '../health/health.module';
import { RecordingsModule } from '../recordings/recordings.module';
import { ExportBatches } from './export-batches';
import { ExportMetrics } from './export-metrics';
import { ExportController } from './export.controller';
import { ExportService } from './export.service';

/** `GET /v1/export`: the NDJSON stream of a whole company from one snapshot. */
@Module({
  imports: [RecordingsModule, ConversationsModule, HealthModule],
  controllers: [ExportController],
  providers: [ExportService, ExportBatches, ExportMetrics, ChangesRepository],
})
export class ExportModule {}
