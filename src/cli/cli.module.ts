import { ReplicaReplay } from '../database/replica-replay';
import { DynamicModule, Module } from '@nestjs/common';
import { ClsModule } from 'nestjs-cls';
import { ClientsModule } from '../clients/clients.module';
import { CompaniesModule } from '../companies/companies.module';
import { Runtime } from '../runtime';
import { RuntimeModule } from '../config/runtime.module';
import { DatabaseModule } from '../database/database.module';
import { MetricsModule } from '../metrics/metrics.module';
import { CLI_OUTPUT, CliOutput } from './cli-output';
import { CLIENT_COMMANDS } from './client.commands';
import { AdminAudit } from '../audit/admin-audit';
import { AuditMaintenance } from '../audit/audit-maintenance';
import { AuditReader } from '../audit/audit-reader';
import { AuditExportCommand, AuditPruneCommand, AuditTailCommand } from './audit.commands';
import { CompanyCreateCommand, CompanyFeatureCommand } from './company.commands';
import { DemoSeeder } from '../seeding/demo-seeder';
import { SeedActivityCommand, SeedDemoCommand, SeedVolumeCommand } from './seed.commands';
import { VolumeSeeder } from '../seeding/volume-seeder';
import { ChangeCompaction } from '../changes/change-compaction';
import { ChangesCompactCommand } from './changes.commands';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { WEBHOOK_COMMANDS } from './webhooks.commands';
import { ReadModelModule } from '../read-model/read-model.module';
import { DocumentsRefreshCommand } from './documents.commands';

const commands = [
  CompanyCreateCommand,
  CompanyFeatureCommand,
  ...CLIENT_COMMANDS,
  AuditTailCommand,
  AuditExportCommand,
  AuditPruneCommand,
  SeedDemoCommand,
  SeedVolumeCommand,
  SeedActivityCommand,
  ChangesCompactCommand,
  DocumentsRefreshCommand,
  ...WEBHOOK_COMMANDS,
];

/** The admin CLI: the domain services over the schema owner's connection. */
@Module({})
export class CliModule {
  static forRoot(runtime: Runtime, output: CliOutput): DynamicModule {
    return {
      module: CliModule,
      imports: [
        RuntimeModule.forRoot(runtime),
        ClsModule.forRoot({ global: true }),
        MetricsModule.off(),
        DatabaseModule.forOwner(),
        CompaniesModule,
        ClientsModule,
        WebhooksModule,
        ReadModelModule,
      ],
      providers: [
        ...commands,
        AuditReader,
        AuditMaintenance,
        AdminAudit,
        DemoSeeder,
        VolumeSeeder,
        ChangeCompaction,
        ReplicaReplay,
        { provide: CLI_OUTPUT, useValue: output },
      ],
    };
  }
}
