import { Command, Option } from 'nest-commander';
import { AuditReader } from '../audit/audit-reader';
import { AdminError } from '../common/errors/admin-error';
import { Instant } from '../common/validation/instant';
import { CompaniesService } from '../companies/companies.service';
import { AdminCommand, requireOption } from './admin-command';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

@Command({ name: 'audit:tail', description: "print a company's latest audit events, oldest first" })
export class AuditTailCommand extends AdminCommand {
  constructor(
    private readonly companies: CompaniesService,
    private readonly audit: AuditReader,
  ) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'company id (cmp_…)' })
  parseCompany(value: string): string {
    return value;
  }

  @Option({ flags: '--since <instant>', description: 'only events after this RFC 3339 instant (with an offset)' })
  parseSince(value: string): string {
    return value;
  }

  @Option({ flags: '--limit <n>', description: `how many of the latest events (1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT})` })
  parseLimit(value: string): string {
    return value;
  }

  protected async execute(_params: string[], options: Record<string, unknown>): Promise<void> {
    const company = await this.companies.get(requireOption(options, 'company'));
    const limit = options.limit === undefined ? DEFAULT_LIMIT : Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      throw new AdminError('INVALID_ARGUMENTS', `--limit must be an integer from 1 to ${MAX_LIMIT}`);
    let since: string | undefined;
    if (options.since !== undefined) {
      const instant = Instant.parse(String(options.since));
      if (!instant) throw new AdminError('INVALID_ARGUMENTS', '--since must be an RFC 3339 date-time with an offset');
      since = instant.iso;
    }
    const events = await this.audit.tail(company.publicId, limit, since);
    const text = events.map(
      (e) => `${e.occurred_at} ${e.request_id} ${e.status} ${e.method} ${e.route ?? '(no route)'} ${e.client ?? '-'} ${e.address ?? '-'}`,
    );
    this.output.result({ data: events }, text.join('\n') || 'no audit events');
  }
}
