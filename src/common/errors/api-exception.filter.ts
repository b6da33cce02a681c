import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { newRequestId, REQUEST_ID_HEADER } from '../http/request-id.middleware';
import { RouteTable } from '../http/route-table';
import { ApiError } from './api-error';
import { FailedRequests } from './failed-requests';
import { ErrorCode, GENERIC_INTERNAL_DETAIL, oauthErrorOf } from './error-codes';
import { isDatabaseUnavailable } from './database-errors';

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'INVALID_REQUEST',
  401: 'INVALID_ACCESS_TOKEN',
  404: 'RESOURCE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The single place where errors become responses: the spec's error envelope on the API,
 * the OAuth error shape on the token endpoint. Nothing of an unexpected error's cause
 * (stack, SQL, paths, payloads) reaches the client; it is logged with the request id.
 */
@Injectable()
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly routes: RouteTable,
    private readonly failures: FailedRequests,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const requestId = req.requestId ?? newRequestId();
    const error = this.toApiError(exception, req);

    if (error.code === 'INTERNAL_ERROR') {
      this.logger.error({ err: exception, request_id: requestId }, 'unexpected error');
    } else if (error.status === 503) {
      this.logger.warn({ err: describe(exception), request_id: requestId }, 'dependency unavailable');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    res.setHeader(REQUEST_ID_HEADER, requestId);
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    const body =
      req.surface === 'token'
        ? { error: oauthErrorOf(error.code), error_description: error.detail }
        : { error: { type: error.type, title: error.title, detail: error.detail, code: error.code, request_id: requestId } };
    res.status(error.status).json(body);
    this.failures.failed(req, error.status, error.code);
  }

  private toApiError(exception: unknown, req: Request): ApiError {
    if (exception instanceof ApiError) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        const allowed = this.routes.allowedMethods(req.path);
        if (allowed.length > 0) {
          return new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on this path.`, { Allow: allowed.join(', ') });
        }
        return new ApiError('RESOURCE_NOT_FOUND', 'No such route.');
      }
      const code = STATUS_CODES[status];
      if (code) return new ApiError(code);
    }
    const clientError = clientErrorStatus(exception);
    if (clientError) return new ApiError(STATUS_CODES[clientError]);
    if (isDatabaseUnavailable(exception))
      return new ApiError('SERVICE_UNAVAILABLE', 'A required dependency is unavailable; retry with backoff.');
    return new ApiError('INTERNAL_ERROR', GENERIC_INTERNAL_DETAIL);
  }
}

/**
 * The status of an http-errors client error, when the API has a code for it. body-parser and
 * raw-body report every refusal so: 413 (too large, too many parameters), 415 (charset, content
 * coding), 400 (unparsable, aborted, a body that is not the gzip it claims).
 */
function clientErrorStatus(exception: unknown): number | undefined {
  const { status, expose } = (exception ?? {}) as { status?: unknown; expose?: unknown };
  return expose === true && typeof status === 'number' && status >= 400 && status < 500 && STATUS_CODES[status] ? status : undefined;
}

function describe(exception: unknown): string {
  if (exception instanceof Error) return `${exception.name}: ${exception.message}`;
  return String(exception);
}
