import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Metrics } from './metrics';

/** The process's metrics, injectable everywhere. */
@Global()
@Module({})
export class MetricsModule {
  /** For a serving process: recording unless METRICS_PORT=off. */
  static forRoot(): DynamicModule {
    return {
      module: MetricsModule,
      providers: [
        { provide: Metrics, inject: [AppConfig], useFactory: (config: AppConfig) => new Metrics(config.metricsPort !== undefined) },
      ],
      exports: [Metrics],
    };
  }

  /** For the CLI: nothing recorded, nothing served. */
  static off(): DynamicModule {
    return { module: MetricsModule, providers: [{ provide: Metrics, useValue: new Metrics(false) }], exports: [Metrics] };
  }
}
