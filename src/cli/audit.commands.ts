import { Command, Option } from 'nest-commander';
import { once } from 'node:events';
import { AuditMaintenance } from '../audit/audit-maintenance';
import { AuditReader } from '../audit/audit-reader';
import { AppConfig } from '../config/app-config';
import { AdminError } from '../common/errors/admin-error';
import { CompaniesService } from '../companies/companies.service';
import { AdminCommand, CommonOptions } from './admin-command';
import { instantOption, integerOption, required, textOption } from './option-parsers';
import { progressBar } from './cli-output';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

interface AuditTailOptions extends CommonOptions {
  company?: string;
  since?: string;
  limit?: number;
}

@Command({ name: 'audit:tail', description: "print a company's latest audit events, oldest first" })
export class AuditTailCommand extends AdminCommand<AuditTailOptions> {
  constructor(
    private readonly companies: CompaniesService,
    private readonly audit: AuditReader,
  ) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'company id (cmp_…)' })
  parseCompany(value: string): string {
    return textOption('company', value);
  }

  @Option({ flags: '--since <instant>', description: 'only events after this RFC 3339 instant (with an offset)' })
  parseSince(value: string): string {
    return instantOption('since', value);
  }

  @Option({ flags: '--limit <n>', description: `how many of the latest events (1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT})` })
  parseLimit(value: string): number {
    return integerOption('limit', value, 1, MAX_LIMIT);
  }

  protected async execute(_params: string[], options: AuditTailOptions): Promise<void> {
    const company = await this.companies.get(required(options.company, 'company'));
    const events = await this.audit.tail(company.publicId, options.limit ?? DEFAULT_LIMIT, options.since);
    const text = events.map(
      (e) => `${e.occurred_at} ${e.request_id} ${e.status} ${e.method} ${e.route ?? '(no route)'} ${e.client ?? '-'} ${e.address ?? '-'}`,
    );
    this.output.result({ data: events }, text.join('\n') || 'no audit events');
  }
}

interface AuditExportOptions extends CommonOptions {
  from?: string;
  to?: string;
  company?: string;
}

@Command({
  name: 'audit:export',
  description: 'write the audit events of a window as NDJSON on stdout (one event per line), oldest first',
})
export class AuditExportCommand extends AdminCommand<AuditExportOptions> {
  constructor(
    private readonly companies: CompaniesService,
    private readonly audit: AuditReader,
  ) {
    super();
  }

  @Option({ flags: '--from <instant>', description: 'first instant of the window, included (RFC 3339 with an offset)' })
  parseFrom(value: string): string {
    return instantOption('from', value);
  }

  @Option({ flags: '--to <instant>', description: 'end of the window, excluded (RFC 3339 with an offset)' })
  parseTo(value: string): string {
    return instantOption('to', value);
  }

  @Option({ flags: '--company <id>', description: "only this company's events (cmp_…)" })
  parseCompany(value: string): string {
    return textOption('company', value);
  }

  protected async execute(_params: string[], options: AuditExportOptions): Promise<void> {
    const [from, to] = [required(options.from, 'from'), required(options.to, 'to')];
    if (from >= to) throw new AdminError('INVALID_ARGUMENTS', '--from must be earlier than --to');
    const company = options.company === undefined ? undefined : (await this.companies.get(options.company)).publicId;
    const bar = process.stderr.isTTY ? progressBar() : undefined;
    const written = await this.audit.export(
      { from, to, company },
      async (records) => {
        // Streamed: wait for stdout to drain rather than buffering the whole window.
        if (!process.stdout.write(records.map((r) => `${JSON.stringify(r)}\n`).join(''))) await once(process.stdout, 'drain');
      },
      (done, total) => bar?.('audit:export', done, total),
    );
    if (bar) process.stderr.write('\n');
    process.stderr.write(`exported ${written} audit events from ${from} to ${to}\n`);
  }
}

@Command({
  name: 'audit:prune',
  description: 'drop the audit partitions wholly older than AUDIT_RETENTION_DAYS and create the coming months; run it daily',
})
export class AuditPruneCommand extends AdminCommand {
  constructor(
    private readonly maintenance: AuditMaintenance,
    private readonly config: AppConfig,
  ) {
    super();
  }

  protected async execute(): Promise<void> {
    const { created, dropped } = await this.maintenance.prune(this.config.auditRetentionDays);
    this.output.result(
      { retention_days: this.config.auditRetentionDays, dropped, created },
      `retention ${this.config.auditRetentionDays} days: dropped ${dropped.length} partitions${dropped.length ? ` (${dropped.join(', ')})` : ''}, created ${created.length}`,
    );
  }
}
