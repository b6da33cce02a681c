import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RequestSurface } from './request-surface.middleware';

/**
 * Sets one header on every request to `surface`, before anything can refuse it: the token
 * endpoint's `RateLimit-Policy`, so its 400/413/415 from body parsing (before the guards run)
 * name the policy too.
 */
export function surfaceHeaderMiddleware(surface: RequestSurface, name: string, value: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.surface === surface) res.setHeader(name, value);
    next();
  };
}
