import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import { AppConfig } from '../config/app-config';

/**
 * Structured JSON logs. One line per request with its id, method, route template, status
 * and latency. Headers that carry credentials are redacted; bodies and query strings are
 * never logged (the token endpoint's body holds a secret).
 */
type RoutedRequest = IncomingMessage & { route?: { path?: string } };

/** The route template (`/v1/meetings/:meeting_id`), known once the request was routed. */
function withRoute(req: RoutedRequest, _res: unknown, value: object): object {
  return { ...value, route: req.route?.path };
}

@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.logLevel,
          genReqId: (req: IncomingMessage) => req.requestId ?? 'req_unknown',
          redact: {
            paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["proxy-authorization"]', 'res.headers["set-cookie"]'],
            censor: '[redacted]',
          },
          serializers: {
            req: (req: { id: string; method: string; url: string; headers: Record<string, string | undefined> }) => ({
              id: req.id,
              method: req.method,
              path: req.url.split('?')[0],
              userAgent: req.headers['user-agent'],
            }),
            res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
          },
          customSuccessObject: withRoute,
          customErrorObject: withRoute,
          autoLogging: { ignore: (req: IncomingMessage) => (req.url ?? '').startsWith('/health/') },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
