import type { NextFunction, Request, Response } from 'express';
import { randomIdBody } from '../ids/public-id';

export const REQUEST_ID_HEADER = 'X-Request-Id';

declare module 'http' {
  interface IncomingMessage {
    /** `req_<id>`, minted for every request before anything else runs. */
    requestId?: string;
    /** When the request arrived: the audit row's `occurred_at`. */
    receivedAt?: Date;
  }
}

export function newRequestId(): string {
  return `req_${randomIdBody()}`;
}

/**
 * First middleware of the app: every response, errors and probes included, carries its
 * request id. Incoming ids are not trusted (they would let a client forge audit entries).
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  req.requestId = newRequestId();
  req.receivedAt = new Date();
  res.setHeader(REQUEST_ID_HEADER, req.requestId);
  next();
}

/** Responses of the API and the token endpoint hold tenant data or tokens: never cache them. */
export function noStoreMiddleware(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  next();
}

/** Paths whose responses are `no-store`. */
export const NO_STORE_PATHS = ['/v1', '/oauth/token'];

export const OAUTH_TOKEN_PATH = '/oauth/token';

/** Whether Express routes `path` to the token endpoint (its matching is case-insensitive and ignores a trailing slash). */
export function isOAuthTokenPath(path: string): boolean {
  return path.replace(/\/$/, '').toLowerCase() === OAUTH_TOKEN_PATH;
}
