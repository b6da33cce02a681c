import { Command, Option } from 'nest-commander';
import { once } from 'node:events';
import { AuditMaintenance } from '../audit/audit-maintenance';
import { AuditReader } from '../audit/audit-reader';
import { AppConfig } from '../config/app-config';
import { AdminError } from '../common/errors/admin-error';
import { Instant } from '../common/validation/instant';
import { CompaniesService } from '../companies/companies.service';
import { AdminCommand, requireOption } from './admin-command';
import { progressBar } from './cli-output';

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

/** An RFC 3339 option as the UTC text PostgreSQL reads exactly. */
function instantOption(options: Record<string, unknown>, name: string): string {
  const instant = Instant.parse(requireOption(options, name));
  if (!instant) throw new AdminError('INVALID_ARGUMENTS', `--${name} must be an RFC 3339 date-time with an offset`);
  return instant.iso;
}

@Command({
  name: 'audit:export',
  description: 'write the audit events of a window as NDJSON on stdout (one event per line), oldest first',
})
export class AuditExportCommand extends AdminCommand {
  constructor(
    private readonly companies: CompaniesService,
    private readonly audit: AuditReader,
  ) {
    super();
  }

  @Option({ flags: '--from <instant>', description: 'first instant of the window, included (RFC 3339 with an offset)' })
  parseFrom(value: string): string {
    return value;
  }

  @Option({ flags: '--to <instant>', description: 'end of the window, excluded (RFC 3339 with an offset)' })
  parseTo(value: string): string {
    return value;
  }

  @Option({ flags: '--company <id>', description: "only this company's events (cmp_…)" })
  parseCompany(value: string): string {
    return value;
  }

  protected async execute(_params: string[], options: Record<string, unknown>): Promise<void> {
    const [from, to] = [instantOption(options, 'from'), instantOption(options, 'to')];
    if (from >= to) throw new AdminError('INVALID_ARGUMENTS', '--from must be earlier than --to');
    const company = options.company === undefined ? undefined : (await this.companies.get(String(options.company))).publicId;
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
