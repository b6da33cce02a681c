import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * `Content-Security-Policy` of `/docs`: Swagger UI's own scripts only (none inline), its styles
 * (it writes some inline), images and fonts from here or data URLs, requests ("try it out") to
 * this origin and the public base URL's, no framing, no plugins, no base or form targets.
 */
export function docsContentSecurityPolicy(publicBaseUrl: string): string {
  const api = new URL(publicBaseUrl).origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${api}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Sets the documentation page's `Content-Security-Policy` (mounted on `/docs`). */
export function docsSecurityMiddleware(publicBaseUrl: string): RequestHandler {
  const csp = docsContentSecurityPolicy(publicBaseUrl);
  return (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', csp);
    next();
  };
}
