import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { CTX, Principal } from '../common/http/request-context';
import { ContextDto } from './context.dto';

@Injectable()
export class ContextService {
  constructor(private readonly cls: ClsService) {}

  /**
   * The caller as authenticated for this request (names as of this request's credential
   * check). `rate_limits` stays empty until rate limiting exists (issue #7 fills it).
   */
  current(): ContextDto {
    const principal = this.cls.get<Principal>(CTX.principal);
    return {
      client: { id: principal.clientId, name: principal.clientName },
      company: { id: principal.companyPublicId, name: principal.companyName },
      scopes: principal.scopes,
      rate_limits: [],
    };
  }
}
