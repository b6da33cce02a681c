/**
 * The single table of the API's error codes: HTTP status, error class (`type`) and the
 * fixed human title. Codes are stable; titles may be reworded.
 */
export const ERROR_CODES = {
  INVALID_LIMIT: { status: 400, type: 'InvalidRequestError', title: 'Invalid page size' },
  INVALID_DATETIME: { status: 400, type: 'InvalidRequestError', title: 'Invalid date-time' },
  INVALID_FILTER: { status: 400, type: 'InvalidRequestError', title: 'Invalid filter' },
  INVALID_CURSOR: { status: 400, type: 'InvalidRequestError', title: 'Invalid cursor' },
  INVALID_REQUEST: { status: 400, type: 'InvalidRequestError', title: 'Invalid request' },
  MISSING_ACCESS_TOKEN: { status: 401, type: 'AuthenticationError', title: 'Missing access token' },
  INVALID_ACCESS_TOKEN: { status: 401, type: 'AuthenticationError', title: 'Invalid access token' },
  INSUFFICIENT_SCOPE: { status: 403, type: 'ForbiddenError', title: 'Insufficient scope' },
  API_ACCESS_DISABLED: { status: 403, type: 'ForbiddenError', title: 'API access disabled' },
  RESOURCE_NOT_FOUND: { status: 404, type: 'NotFoundError', title: 'Resource not found' },
  METHOD_NOT_ALLOWED: { status: 405, type: 'InvalidRequestError', title: 'Method not allowed' },
  ROTATION_IN_PROGRESS: { status: 409, type: 'ConflictError', title: 'Rotation in progress' },
  PAYLOAD_TOO_LARGE: { status: 413, type: 'PayloadTooLargeError', title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    type: 'UnsupportedMediaTypeError',
    title: 'Unsupported media type',
  },
  RATE_LIMIT_EXCEEDED: { status: 429, type: 'RateLimitError', title: 'Rate limit exceeded' },
  INTERNAL_ERROR: { status: 500, type: 'InternalError', title: 'Internal error' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    type: 'ServiceUnavailableError',
    title: 'Service unavailable',
  },
  AUDIT_UNAVAILABLE: { status: 503, type: 'ServiceUnavailableError', title: 'Audit unavailable' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export type ErrorType = (typeof ERROR_CODES)[ErrorCode]['type'];

export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

/** The fixed text of an unexpected failure: nothing about the cause leaves the process. */
export const GENERIC_INTERNAL_DETAIL = 'An unexpected error occurred. Quote the request_id to support.';
