/**
 * The single table of the API's error codes: HTTP status, error class (`type`) and the
 * fixed human title. Codes are stable; titles may be reworded. `oauth` is the RFC 6749
 * `error` the token endpoint answers instead of the code; the codes marked `tokenOnly`
 * exist only there (the `/v1` envelope never carries them).
 */
export const ERROR_CODES = {
  INVALID_LIMIT: { status: 400, type: 'InvalidRequestError', title: 'Invalid page size' },
  INVALID_DATETIME: { status: 400, type: 'InvalidRequestError', title: 'Invalid date-time' },
  INVALID_FILTER: { status: 400, type: 'InvalidRequestError', title: 'Invalid filter' },
  INVALID_CURSOR: { status: 400, type: 'InvalidRequestError', title: 'Invalid cursor' },
  INVALID_REQUEST: { status: 400, type: 'InvalidRequestError', title: 'Invalid request', oauth: 'invalid_request' },
  INVALID_WEBHOOK_URL: { status: 400, type: 'InvalidRequestError', title: 'Invalid webhook URL' },
  UNSUPPORTED_GRANT_TYPE: {
    status: 400,
    type: 'InvalidRequestError',
    title: 'Unsupported grant type',
    oauth: 'unsupported_grant_type',
    tokenOnly: true,
  },
  INVALID_SCOPE: { status: 400, type: 'InvalidRequestError', title: 'Invalid scope', oauth: 'invalid_scope', tokenOnly: true },
  INVALID_CLIENT: {
    status: 401,
    type: 'AuthenticationError',
    title: 'Client authentication failed',
    oauth: 'invalid_client',
    tokenOnly: true,
  },
  MISSING_ACCESS_TOKEN: { status: 401, type: 'AuthenticationError', title: 'Missing access token' },
  INVALID_ACCESS_TOKEN: { status: 401, type: 'AuthenticationError', title: 'Invalid access token' },
  INSUFFICIENT_SCOPE: { status: 403, type: 'ForbiddenError', title: 'Insufficient scope' },
  API_ACCESS_DISABLED: { status: 403, type: 'ForbiddenError', title: 'API access disabled' },
  RESOURCE_NOT_FOUND: { status: 404, type: 'NotFoundError', title: 'Resource not found' },
  METHOD_NOT_ALLOWED: { status: 405, type: 'InvalidRequestError', title: 'Method not allowed' },
  ROTATION_IN_PROGRESS: { status: 409, type: 'ConflictError', title: 'Rotation in progress' },
  WEBHOOK_ENDPOINT_LIMIT: { status: 409, type: 'ConflictError', title: 'Webhook endpoint limit reached' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, type: 'ConflictError', title: 'Idempotency key reused' },
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

/** Codes the `/v1` error envelope can carry. */
export const ERROR_CODE_NAMES = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => !('tokenOnly' in ERROR_CODES[code]));

/**
 * The `error` of the token endpoint's OAuth body: the RFC 6749 code where one applies (any
 * other 400 is `invalid_request`), otherwise the stable code verbatim (API-DECISIONS.md).
 */
export function oauthErrorOf(code: ErrorCode): string {
  const spec = ERROR_CODES[code];
  if ('oauth' in spec) return spec.oauth;
  return spec.status === 400 ? 'invalid_request' : code;
}

/** The fixed text of an unexpected failure: nothing about the cause leaves the process. */
export const GENERIC_INTERNAL_DETAIL = 'An unexpected error occurred. Quote the request_id to support.';
