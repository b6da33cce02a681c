import { DynamicModule, Module, Type } from '@nestjs/common';
import { ClsModule } from 'nestjs-cls';
import { CompaniesModule } from './companies/companies.module';
import { CursorsModule } from './common/cursors/cursors.module';
import { EnvelopeInterceptor } from './common/http/envelope.interceptor';
import { RouteTable } from './common/http/route-table';
import { Runtime } from './config/runtime';
import { RuntimeModule } from './config/runtime.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';

/** Modules of the HTTP service, in the order a request meets them. */
const domainModules: Type[] = [HealthModule, CompaniesModule];

@Module({})
export class AppModule {
  /** `extra` lets tests mount probe controllers beside the real ones. */
  static forRoot(runtime: Runtime, extra: Array<Type | DynamicModule> = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        RuntimeModule.forRoot(runtime),
        LoggingModule,
        ClsModule.forRoot({
          global: true,
          middleware: { mount: true, generateId: true, idGenerator: (req) => req.requestId },
        }),
        DatabaseModule.forApi(),
        CursorsModule,
        ...domainModules,
        ...extra,
      ],
      providers: [RouteTable, EnvelopeInterceptor],
    };
  }
}
