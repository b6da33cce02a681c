import type { NextFunction, Request, Response } from 'express';

export const OAUTH_TOKEN_PATH = '/oauth/token';

/**
 * Which part of the service a request addresses: the API (`/v1/…`), the token endpoint, or
 * anything else (probes, documentation, unknown paths). Decided once per request from its path
 * exactly as the router matches it (case-sensitive, no trailing-slash aliases, see
 * HardenedExpressAdapter), so no-store headers, the token policy, the OAuth error shape and
 * auditing cannot disagree with routing about what a spelling such as `/V1/…` is.
 */
export type RequestSurface = 'api' | 'token' | 'other';

declare module 'http' {
  interface IncomingMessage {
    surface?: RequestSurface;
  }
}

export function surfaceOf(path: string): RequestSurface {
  if (path === OAUTH_TOKEN_PATH) return 'token';
  return path === '/v1' || path.startsWith('/v1/') ? 'api' : 'other';
}

/** Sets `req.surface`; the answers of the API and the token endpoint hold tenant data or tokens: never cached. */
export function requestSurfaceMiddleware(req: Request, res: Response, next: NextFunction): void {
  req.surface = surfaceOf(req.path);
  if (req.surface !== 'other') {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
  }
  next();
}
