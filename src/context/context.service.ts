import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { principalOf, RequestStore } from '../common/http/request-context';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { ContextDto } from './context.dto';

@Injectable()
export class ContextService {
  constructor(
    private readonly cls: ClsService<RequestStore>,
    private readonly limiter: RateLimiter,
  ) {}

  /**
   * The caller as authenticated for this request (names as of this request's credential
   * check), and every rate-limit policy that governs it, this request counted.
   */
  async current(): Promise<ContextDto> {
    const principal = principalOf(this.cls);
    return {
      client: { id: principal.clientId, name: principal.clientName },
      company: { id: principal.companyPublicId, name: principal.companyName },
      scopes: principal.scopes,
      rate_limits: await this.limiter.snapshot(),
    };
  }
}
