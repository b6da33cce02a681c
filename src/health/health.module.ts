import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { ShutdownState } from '../common/http/shutdown-state';
import { DependencyMetrics } from './dependency-metrics';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [ShutdownState, DependencyMetrics],
  exports: [ShutdownState],
})
export class HealthModule {}
