import { Command, Option } from 'nest-commander';
import { AdminError } from '../common/errors/admin-error';
import { CompaniesService } from '../companies/companies.service';
import { COMPANY_FEATURES, CompanyFeature } from '../companies/company.entity';
import { AdminCommand, CommonOptions } from './admin-command';
import { choiceOption, required, textOption } from './option-parsers';

interface CompanyCreateOptions extends CommonOptions {
  name?: string;
  apiAccess?: 'on' | 'off';
}

@Command({ name: 'company:create', description: 'create a company (tenant)' })
export class CompanyCreateCommand extends AdminCommand<CompanyCreateOptions> {
  constructor(private readonly companies: CompaniesService) {
    super();
  }

  @Option({ flags: '--name <name>', description: 'company name (1 to 200 characters)' })
  parseName(value: string): string {
    const name = textOption('name', value);
    if (name.length > 200) throw new AdminError('INVALID_ARGUMENTS', '--name must be at most 200 characters');
    return name;
  }

  @Option({ flags: '--api-access <on|off>', description: 'API_ACCESS feature (default on)' })
  parseApiAccess(value: string): 'on' | 'off' {
    return choiceOption('api-access', value, ['on', 'off'] as const);
  }

  protected async execute(_params: string[], options: CompanyCreateOptions): Promise<void> {
    const name = required(options.name, 'name');
    const access = options.apiAccess ?? 'on';
    const company = await this.companies.create(name, access === 'on');
    this.output.result({ id: company.publicId }, `created company ${company.publicId} (${company.name}), API_ACCESS ${access}`);
  }
}

interface CompanyFeatureOptions extends CommonOptions {
  company?: string;
  feature?: CompanyFeature;
  enable?: boolean;
  disable?: boolean;
}

@Command({ name: 'company:feature', description: 'switch a company feature on or off' })
export class CompanyFeatureCommand extends AdminCommand<CompanyFeatureOptions> {
  constructor(private readonly companies: CompaniesService) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'company id (cmp_…)' })
  parseCompany(value: string): string {
    return textOption('company', value);
  }

  @Option({ flags: '--feature <name>', description: `feature: ${Object.keys(COMPANY_FEATURES).join(', ')}` })
  parseFeature(value: string): CompanyFeature {
    return choiceOption('feature', value, Object.keys(COMPANY_FEATURES) as CompanyFeature[]);
  }

  @Option({ flags: '--enable', description: 'switch the feature on' })
  parseEnable(): boolean {
    return true;
  }

  @Option({ flags: '--disable', description: 'switch the feature off' })
  parseDisable(): boolean {
    return true;
  }

  protected async execute(_params: string[], options: CompanyFeatureOptions): Promise<void> {
    const company = required(options.company, 'company');
    const feature = required(options.feature, 'feature');
    if (Boolean(options.enable) === Boolean(options.disable))
      throw new AdminError('INVALID_ARGUMENTS', 'give exactly one of --enable or --disable');
    const result = await this.companies.setFeature(company, feature, Boolean(options.enable));
    await (options.disable ? this.replicas.everywhere() : this.replayedOrWarn());
    this.output.result(result, `${result.id}: ${feature} ${options.enable ? 'enabled' : 'disabled'}`);
  }
}
