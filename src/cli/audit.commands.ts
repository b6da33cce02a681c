import { Command, Option } from 'nest-commander';
import { once } from 'node:events';
import { AuditMaintenance } from '../audit/audit-maintenance';
import { AuditReader } from '../audit/audit-reader';
import { StatusRange } from '../audit/audit-read-sql';
import {
  CLIENT_ID_PATTERN,
  RESOURCE_ID_PATTERN,
  ROUTE_PATTERN,
  STATUS_PATTERN,
  statusRange,
} from '../audit-events/list-audit-events.query';
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
  occurredAfter?: string;
  occurredBefore?: string;
  clientId?: string;
  route?: string;
  status?: StatusRange;
  resourceId?: string;
  limit?: number;
}

/** A value that must match the pattern the route's filter of the same name has. */
function patternOption(flag: string, value: string, pattern: string, what: string): string {
  if (!new RegExp(pattern).test(value)) throw new AdminError('INVALID_ARGUMENTS', `--${flag} must be ${what}`);
  return value;
}

@Command({
  name: 'audit:tail',
  description: "print a company's latest audit events, oldest first, filtered as GET /v1/audit-events filters them",
})
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

  @Option({ flags: '--occurred-after <instant>', description: 'only events after this RFC 3339 instant (with an offset)' })
  parseOccurredAfter(value: string): string {
    return instantOption('occurred-after', value);
  }

  @Option({ flags: '--since <instant>', description: 'the same as --occurred-after (its earlier name)' })
  parseSince(value: string): string {
    return instantOption('since', value);
  }

  @Option({ flags: '--occurred-before <instant>', description: 'only events before this RFC 3339 instant (with an offset)' })
  parseOccurredBefore(value: string): string {
    return instantOption('occurred-before', value);
  }

  @Option({ flags: '--client-id <id>', description: "only this client's requests (cli_…)" })
  parseClientId(value: string): string {
    return patternOption('client-id', value, CLIENT_ID_PATTERN, 'a client id (cli_…)');
  }

  @Option({ flags: '--route <template>', description: 'only requests answered by this route, e.g. "GET /v1/meetings/{meeting_id}"' })
  parseRoute(value: string): string {
    return patternOption('route', value, ROUTE_PATTERN, 'a method and route template, e.g. "GET /v1/meetings/{meeting_id}"');
  }

  @Option({ flags: '--status <code|class>', description: 'only requests answered with this status (404) or class (4xx)' })
  parseStatus(value: string): StatusRange {
    return statusRange(patternOption('status', value, STATUS_PATTERN, 'an HTTP status code (404) or class (4xx)'));
  }

  @Option({ flags: '--resource-id <id>', description: 'only requests whose answer named this id (mtg_…, call_…, …)' })
  parseResourceId(value: string): string {
    return patternOption('resource-id', value, RESOURCE_ID_PATTERN, 'an id of the API (mtg_…, call_…, …)');
  }

  @Option({ flags: '--limit <n>', description: `how many of the latest events (1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT})` })
  parseLimit(value: string): number {
    return integerOption('limit', value, 1, MAX_LIMIT);
  }

  protected async execute(_params: string[], options: AuditTailOptions): Promise<void> {
    const companyId = required(options.company, 'company');
    if (options.since !== undefined && options.occurredAfter !== undefined) {
      throw new AdminError('INVALID_ARGUMENTS', '--since and --occurred-after are the same filter: give one');
    }
    const [after, before] = [options.occurredAfter ?? options.since, options.occurredBefore];
    if (after !== undefined && before !== undefined && after >= before) {
      throw new AdminError('INVALID_ARGUMENTS', '--occurred-before must be later than --occurred-after');
    }
    const company = await this.companies.get(companyId);
    const events = await this.audit.tail(company.publicId, options.limit ?? DEFAULT_LIMIT, {
      client: options.clientId,
      route: options.route,
      status: options.status,
      resource: options.resourceId,
      after,
      before,
    });
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
