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
 * request id and `X-Content-Type-Options: nosniff`. Incoming ids are not trusted (they would let a client forge audit entries).
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  req.requestId = newRequestId();
  req.receivedAt = new Date();
  res.setHeader(REQUEST_ID_HEADER, req.requestId);
  // No answer may be read as anything but its declared type (a JSON error sniffed as HTML, say).
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}
