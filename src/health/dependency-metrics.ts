import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditTrail } from '../audit/audit-trail';
import { Metrics } from '../metrics/metrics';
import { RateLimitStore } from '../rate-limit/rate-limit-store';

/** A dependency's answer within this long, or it counts as down for the scrape. */
const CHECK_TIMEOUT_MS = 1000;

/**
 * `dependency_up{dependency}`: 1 when PostgreSQL, the audit store and (when counters are shared)
 * Redis answer at scrape time, 0 when not: the same checks as the readiness probe, so an alert
 * and a pod taken out of its Service agree on what "down" means.
 */
@Injectable()
export class DependencyMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly dataSource: DataSource,
    private readonly audit: AuditTrail,
    private readonly rateLimits: RateLimitStore,
  ) {}

  onModuleInit(): void {
    const checks: Array<[string, () => Promise<unknown>]> = [
      ['postgres', () => this.dataSource.query('SELECT 1')],
      ['audit_store', () => this.audit.check()],
      ...(this.rateLimits.shared ? [['redis', () => this.rateLimits.check()] as [string, () => Promise<unknown>]] : []),
    ];
    this.metrics.gauge(
      'dependency_up',
      'Whether a dependency answered its check at scrape time (1) or not (0).',
      checks.map(([dependency, check]) => ({ labels: { dependency }, read: () => answers(check) })),
    );
  }
}

async function answers(check: () => Promise<unknown>): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS)));
  try {
    await Promise.race([check(), timeout]);
    return 1;
  } catch {
    return 0;
  } finally {
    clearTimeout(timer);
  }
}
