import { ERROR_CODES, ErrorCode } from './error-codes';

/**
 * The one error type of the service. Status and type derive from the code table, so a
 * service only says *what* went wrong; the exception filter decides how it looks.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string = ERROR_CODES[code].title,
    /** Extra response headers the error implies (Allow, WWW-Authenticate, Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(`${code}: ${detail}`);
    this.status = ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
    this.title = ERROR_CODES[code].title;
  }

  static notFound(detail = 'No such resource.'): ApiError {
    return new ApiError('RESOURCE_NOT_FOUND', detail);
  }
}
