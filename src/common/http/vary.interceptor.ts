import { CallHandler, ExecutionContext, NestInterceptor, UseInterceptors } from '@nestjs/common';
import type { Response } from 'express';
import { Observable } from 'rxjs';

/**
 * Adds `Vary` naming request headers a route's answer depends on (the captions' format on
 * `Accept`), beside the `Accept-Encoding` compression names. Set before the handler runs, so
 * the route's errors carry it too.
 */
class VaryInterceptor implements NestInterceptor {
  constructor(private readonly headers: readonly string[]) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    for (const header of this.headers) res.vary(header);
    return next.handle();
  }
}

/** The route's answers vary with these request headers. */
export const VaryOn = (...headers: string[]) => UseInterceptors(new VaryInterceptor(headers));
