import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ShutdownState } from './shutdown-state';

/**
 * Once shutdown begins, every answer closes its connection, so keep-alive clients move on to
 * another instance and the server can drain (see main.ts).
 */
export function drainingMiddleware(shutdown: ShutdownState): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    if (shutdown.isShuttingDown) res.setHeader('Connection', 'close');
    next();
  };
}
