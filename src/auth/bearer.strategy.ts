import { randomUUID } from 'node:crypto';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { ClsService } from 'nestjs-cls';
import passport from 'passport';
import { Strategy } from 'passport-http-bearer';
import { Principal, RequestStore } from '../common/http/request-context';
import { CredentialsService } from './credentials.service';

/**
 * passport-http-bearer, reading the token from the `Authorization` header only. By default
 * it also takes `access_token` from the query string or the body; tokens in URLs end up in
 * proxy logs and browser history, so those places are hidden from it.
 *
 * Passport keeps strategies in one process-wide registry by name. Each application
 * registers its instance under its own name (BearerAuthGuard asks for that name), so two
 * applications in one process (tests, with different keys) never answer for each other.
 * It leaves the registry at the application's shutdown hook, which Nest runs after the HTTP
 * server closed: a module-destroy hook runs before, and a request still being served while the
 * application closed then found no strategy (a 500, seen in a busy .ci/run).
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy) implements OnApplicationShutdown {
  readonly registeredName = `bearer-${randomUUID()}`;

  constructor(
    private readonly credentials: CredentialsService,
    private readonly cls: ClsService<RequestStore>,
  ) {
    super({ passReqToCallback: true });
    passport.use(this.registeredName, this);
  }

  onApplicationShutdown(): void {
    passport.unuse(this.registeredName);
  }

  override authenticate(req: Request, options?: object): void {
    const headerOnly = Object.create(req, { body: { value: undefined }, query: { value: undefined } }) as Request;
    super.authenticate(headerOnly, options);
  }

  async validate(req: Request, token: string): Promise<Principal> {
    // A client gone while its request waits for its turn at the pool leaves the queue.
    const gone = new AbortController();
    const leave = () => gone.abort();
    req.res?.once('close', leave);
    let principal: Principal;
    try {
      principal = await this.credentials.authenticateToken(token, req.ip, gone.signal);
    } finally {
      req.res?.off('close', leave);
    }
    this.cls.set('principal', principal);
    // The tenant transaction authentication opened is ended by the request's work; should a later
    // guard refuse the request (or the client go away) first, the response's end ends it. A
    // client already gone (while its transaction opened, or before this strategy ran) closed
    // the response before anyone listened: its transaction ends now, else nothing would end it.
    const opened = this.cls.get('openedTenant');
    if (opened) {
      if (gone.signal.aborted || req.socket?.destroyed) opened.endUnclaimed();
      else req.res?.once('close', () => opened.endUnclaimed());
    }
    return principal;
  }
}
