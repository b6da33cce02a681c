import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { ClsService } from 'nestjs-cls';
import { Strategy } from 'passport-http-bearer';
import { CTX, Principal } from '../common/http/request-context';
import { CredentialsService } from './credentials.service';

export const BEARER_STRATEGY = 'bearer';

/**
 * passport-http-bearer, reading the token from the `Authorization` header only. By default
 * it also takes `access_token` from the query string or the body; tokens in URLs end up in
 * proxy logs and browser history, so those places are hidden from it.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, BEARER_STRATEGY) {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly cls: ClsService,
  ) {
    super({ passReqToCallback: true });
  }

  override authenticate(req: Request, options?: object): void {
    const headerOnly = Object.create(req, { body: { value: undefined }, query: { value: undefined } }) as Request;
    super.authenticate(headerOnly, options);
  }

  async validate(req: Request, token: string): Promise<Principal> {
    const principal = await this.credentials.authenticateToken(token, req.ip);
    this.cls.set(CTX.principal, principal);
    return principal;
  }
}
