import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ExpressRoute, routeTemplate } from '../common/http/route-table';
import { Metrics, secondsSince, UNMATCHED_ROUTE } from './metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts and times every answered request by method, route template and status. Mounted first,
 * so refusals of the middleware after it (413, 415, 503 while draining…) count too. The route is
 * Express's template once routed (`/v1/meetings/:meeting_id`), `unmatched` otherwise: a path
 * would put ids and whatever a client typed into a label.
 */
export function httpMetricsMiddleware(metrics: Metrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const route = routeTemplate(req.route as ExpressRoute | undefined) ?? UNMATCHED_ROUTE;
      metrics.request(METHODS.has(req.method) ? req.method : 'OTHER', route, res.statusCode, secondsSince(started));
    });
    next();
  };
}
