import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { mintId } from '../common/ids/public-id';
import { Company, COMPANY_FEATURES, CompanyFeature } from './company.entity';

/** Company administration; runs as the schema owner (CLI), never on an API request. */
@Injectable()
export class CompaniesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(name: string, apiAccess: boolean): Promise<Company> {
    const repo = this.dataSource.getRepository(Company);
    return repo.save(repo.create({ publicId: mintId('company'), name, apiAccess }));
  }

  findByPublicId(publicId: string): Promise<Company | null> {
    return this.dataSource.getRepository(Company).findOneBy({ publicId });
  }

  async setFeature(company: Company, feature: CompanyFeature, enabled: boolean): Promise<Company> {
    const repo = this.dataSource.getRepository(Company);
    await repo.update({ id: company.id }, { [COMPANY_FEATURES[feature]]: enabled });
    return repo.findOneByOrFail({ id: company.id });
  }
}
