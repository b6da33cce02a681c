import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { DatabaseUrls, Runtime, RuntimeSecrets } from './runtime';

/** Makes the resolved runtime (configuration, database URLs, secrets) injectable everywhere. */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(runtime: Runtime): DynamicModule {
    const providers = [
      { provide: AppConfig, useValue: runtime.config },
      { provide: DatabaseUrls, useValue: runtime.urls },
      { provide: RuntimeSecrets, useValue: runtime.secrets },
    ];
    return { module: RuntimeModule, providers, exports: providers.map((p) => p.provide) };
  }
}
