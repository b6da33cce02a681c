import { Command, Option } from 'nest-commander';
import { COMPANY_FEATURES, CompanyFeature } from '../companies/company.entity';
import { CompaniesService } from '../companies/companies.service';
import { AdminCommand, requireOption } from './admin-command';
import { AdminError } from '../common/errors/admin-error';

@Command({ name: 'company:create', description: 'create a company (tenant)' })
export class CompanyCreateCommand extends AdminCommand {
  constructor(private readonly companies: CompaniesService) {
    super();
  }

  @Option({ flags: '--name <name>', description: 'company name (1 to 200 characters)' })
  parseName(value: string): string {
    return value;
  }

  @Option({ flags: '--api-access <on|off>', description: 'API_ACCESS feature (default on)' })
  parseApiAccess(value: string): string {
    return value;
  }

  protected async execute(_params: string[], options: Record<string, unknown>): Promise<void> {
    const name = requireOption(options, 'name');
    if (name.length > 200) throw new AdminError('INVALID_ARGUMENTS', '--name must be at most 200 characters');
    const access = options.apiAccess ?? 'on';
    if (access !== 'on' && access !== 'off') throw new AdminError('INVALID_ARGUMENTS', '--api-access must be on or off');
    const company = await this.companies.create(name, access === 'on');
    this.output.result({ id: company.publicId }, `created company ${company.publicId} (${company.name}), API_ACCESS ${access}`);
  }
}

@Command({ name: 'company:feature', description: 'switch a company feature on or off' })
export class CompanyFeatureCommand extends AdminCommand {
  constructor(private readonly companies: CompaniesService) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'company id (cmp_…)' })
  parseCompany(value: string): string {
    return value;
  }

  @Option({ flags: '--feature <name>', description: `feature: ${Object.keys(COMPANY_FEATURES).join(', ')}` })
  parseFeature(value: string): string {
    return value;
  }

  @Option({ flags: '--enable', description: 'switch the feature on' })
  parseEnable(): boolean {
    return true;
  }

  @Option({ flags: '--disable', description: 'switch the feature off' })
  parseDisable(): boolean {
    return true;
  }

  protected async execute(_params: string[], options: Record<string, unknown>): Promise<void> {
    const company = requireOption(options, 'company');
    const feature = requireOption(options, 'feature');
    if (!(feature in COMPANY_FEATURES))
      throw new AdminError('INVALID_ARGUMENTS', `--feature must be one of ${Object.keys(COMPANY_FEATURES).join(', ')}`);
    if (Boolean(options.enable) === Boolean(options.disable))
      throw new AdminError('INVALID_ARGUMENTS', 'give exactly one of --enable or --disable');
    const result = await this.companies.setFeature(company, feature as CompanyFeature, Boolean(options.enable));
    this.output.result(result, `${result.id}: ${feature} ${options.enable ? 'enabled' : 'disabled'}`);
  }
}
