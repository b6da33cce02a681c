import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import { AppConfig } from '../config/app-config';
import type { Principal } from '../common/http/request-context';
import { ExpressRoute, routeTemplate } from '../common/http/route-table';
import { UNMATCHED_ROUTE } from '../metrics/metrics';

/**
 * Structured logs: one JSON line per request with its id, method, route template, status,
 * latency (`responseTime`, ms) and, once authenticated, the client's and the company's public
 * ids. Never a path (it holds record ids), a query string, a body (the token endpoint's holds a
 * secret) or a credential header. On a terminal (or LOG_FORMAT=pretty) the same lines, readable.
 */
type RoutedRequest = IncomingMessage & { route?: ExpressRoute; user?: Principal };

/** What every request line adds to pino-http's: the route template and who asked. */
export function requestLineFields(req: RoutedRequest, _res: unknown, value: object): object {
  return {
    ...value,
    route: routeTemplate(req.route) ?? UNMATCHED_ROUTE,
    ...(req.user ? { client_id: req.user.clientId, company_id: req.user.companyPublicId } : {}),
  };
}

@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.logLevel,
          ...(config.logFormat === 'pretty'
            ? {
                transport: {
                  target: 'pino-pretty',
                  options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
                },
              }
            : {}),
          genReqId: (req: IncomingMessage) => req.requestId ?? 'req_unknown',
          serializers: {
            req: (req: { id: string; method: string; headers: Record<string, string | undefined> }) => ({
              id: req.id,
              method: req.method,
              userAgent: req.headers['user-agent'],
            }),
            res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
          },
          customSuccessObject: requestLineFields,
          customErrorObject: requestLineFields,
          autoLogging: { ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/health/') },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
