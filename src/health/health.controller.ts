import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckResult, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { RawResponse } from '../common/http/envelope.interceptor';
import { AuditTrail } from '../audit/audit-trail';
import { RateLimitStore } from '../rate-limit/rate-limit-store';
import { ShutdownState } from '../common/http/shutdown-state';

/**
 * Container probes: no auth, no rate limit, no audit, outside /v1. Liveness checks nothing
 * (a database outage must not restart every pod); readiness checks what requests need:
 * PostgreSQL, the audit store (which must accept inserts) and, when counters are shared,
 * the rate-limit store (Redis).
 */
@ApiExcludeController()
@Public()
@RawResponse()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly shutdown: ShutdownState,
    private readonly audit: AuditTrail,
    private readonly rateLimits: RateLimitStore,
  ) {}

  @Get('live')
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) res: Response): Promise<HealthCheckResult | object> {
    try {
      return await this.health.check([
        () => {
          const indicator = this.indicators.check('shutdown');
          return this.shutdown.isShuttingDown ? indicator.down({ message: 'shutting down' }) : indicator.up();
        },
        () => this.database.pingCheck('database', { timeout: 1000 }),
        () =>
          this.dependency(
            'audit',
            () => this.audit.check(),
            () => ({ lost: this.audit.stats.lost }),
          ),
        ...(this.rateLimits.shared ? [() => this.dependency('redis', () => this.rateLimits.check())] : []),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      res.status(503);
      return error.getResponse() as object;
    }
  }

  /** Up when `check` resolves (with `details`), down with the failure's message otherwise. */
  private async dependency(name: string, check: () => Promise<void>, details: () => Record<string, unknown> = () => ({})) {
    const indicator = this.indicators.check(name);
    try {
      await check();
      return indicator.up(details());
    } catch (error) {
      return indicator.down({ message: error instanceof Error ? error.message : 'unavailable' });
    }
  }
}
