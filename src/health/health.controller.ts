import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckResult, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { RawResponse } from '../common/http/envelope.interceptor';
import { AuditTrail } from '../audit/audit-trail';
import { ShutdownState } from './shutdown-state';

/**
 * Container probes: no auth, no rate limit, no audit, outside /v1. Liveness checks nothing
 * (a database outage must not restart every pod); readiness checks what requests need:
 * PostgreSQL and the audit store (which must accept inserts).
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
        async () => {
          const indicator = this.indicators.check('audit');
          try {
            await this.audit.check();
            return indicator.up({ lost: this.audit.stats.lost });
          } catch (error) {
            return indicator.down({ message: error instanceof Error ? error.message : 'unavailable' });
          }
        },
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      res.status(503);
      return error.getResponse() as object;
    }
  }
}
