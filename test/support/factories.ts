import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { mintId } from '../../src/common/ids/public-id';

/** A new company with a unique name; each test builds its own tenants. */
export async function createCompany(owner: DataSource, overrides: Partial<Pick<Company, 'name' | 'apiAccess'>> = {}): Promise<Company> {
  const repo = owner.getRepository(Company);
  return repo.save(
    repo.create({ publicId: mintId('company'), name: `Empresa ${randomBytes(4).toString('hex')}`, apiAccess: true, ...overrides }),
  );
}
