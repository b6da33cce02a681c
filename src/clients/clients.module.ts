import { Module } from '@nestjs/common';
import { CompaniesModule } from '../companies/companies.module';
import { ClientsRepository } from './clients.repository';
import { ClientsService } from './clients.service';

/** Credential administration (CLI); the API side of credentials lives in `auth`. */
@Module({
  imports: [CompaniesModule],
  providers: [ClientsRepository, ClientsService],
  exports: [ClientsService],
})
export class ClientsModule {}
