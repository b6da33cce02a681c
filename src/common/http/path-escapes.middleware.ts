import type { NextFunction, Request, Response } from 'express';

/** `segment`, with each `%` made literal when the segment is not a valid percent-encoding of UTF-8. */
function literalIfMalformed(segment: string): string {
  try {
    decodeURIComponent(segment);
    return segment;
  } catch {
    return segment.replace(/%/g, '%25');
  }
}

/**
 * Express decodes path parameters with decodeURIComponent and answers a malformed escape
 * (`/v1/meetings/%zz`, or bytes that are not UTF-8 such as `%C0`) with a bare 400 before
 * any of our checks, ahead of authentication and on unknown routes alike. Such a segment
 * cannot name any resource: its `%` signs are made literal, so the request takes the
 * documented path (401 without a token, 404 for the id, 404 for an unknown route).
 * Registered before every other middleware, since Nest's own (`forRoutes('*')`) decode too.
 */
export function literalMalformedEscapes(req: Request, _res: Response, next: NextFunction): void {
  const query = req.url.indexOf('?');
  const path = query < 0 ? req.url : req.url.slice(0, query);
  if (path.includes('%')) {
    const fixed = path.split('/').map(literalIfMalformed).join('/');
    if (fixed !== path) req.url = fixed + (query < 0 ? '' : req.url.slice(query));
  }
  next();
}
