import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { DatabaseUrls } from './database-urls';
import { RuntimeSecrets } from './runtime-secrets';

/** Makes the resolved runtime (configuration, database URLs, secrets) injectable everywhere. */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(runtime: { config: AppConfig; urls: DatabaseUrls; secrets: RuntimeSecrets }): DynamicModule {
    const providers = [
      { provide: AppConfig, useValue: runtime.config },
      { provide: DatabaseUrls, useValue: runtime.urls },
      { provide: RuntimeSecrets, useValue: runtime.secrets },
    ];
    return { module: RuntimeModule, providers, exports: providers.map((p) => p.provide) };
  }
}
