import { Injectable } from '@nestjs/common';
import { AdminError } from '../common/errors/admin-error';
import { parseId } from '../common/ids/public-id';
import { Company, CompanyFeature, featuresOf } from './company.entity';
import { CompaniesRepository } from './companies.repository';

export class CompanyNotFoundError extends AdminError {
  constructor(id: string) {
    super('COMPANY_NOT_FOUND', `No company with id ${JSON.stringify(id)}.`);
  }
}

@Injectable()
export class CompaniesService {
  constructor(private readonly companies: CompaniesRepository) {}

  create(name: string, apiAccess: boolean): Promise<Company> {
    return this.companies.create(name, apiAccess);
  }

  async get(publicId: string): Promise<Company> {
    const id = parseId('company', publicId);
    const company = id ? await this.companies.findByPublicId(id) : null;
    if (!company) throw new CompanyNotFoundError(publicId);
    return company;
  }

  async setFeature(
    publicId: string,
    feature: CompanyFeature,
    enabled: boolean,
  ): Promise<{ id: string; features: Record<CompanyFeature, boolean> }> {
    const company = await this.companies.setFeature(await this.get(publicId), feature, enabled);
    return { id: company.publicId, features: featuresOf(company) };
  }
}
