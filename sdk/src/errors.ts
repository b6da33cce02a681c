/**
 * Every failure the SDK reports is an `ApiError`: an answer of the API that was not a success
 * (`status` its HTTP status, `code` its stable code), or no answer at all (`status` 0: the network,
 * a timeout, a cut export stream). Program against `code`; `detail` is for people.
 */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  /** The HTTP status, or 0 when no answer came (`CONNECTION_ERROR`, `TIMEOUT`, `EXPORT_CUT`). */
  readonly status: number;
  /**
   * The stable code: the envelope's `code` on `/v1` (`RESOURCE_NOT_FOUND`, `RATE_LIMIT_EXCEEDED`…),
   * the OAuth `error` at the token endpoint (`invalid_client`…), or the SDK's own for failures
   * without an answer (`CONNECTION_ERROR`, `TIMEOUT`, `EXPORT_CUT`, `INVALID_RESPONSE`).
   */
  readonly code: string;
  /** Human explanation; never parse it. */
  readonly detail: string;
  /** The request id to quote to support (`X-Request-Id`), when the service answered. */
  readonly requestId: string | null;
  /** The envelope's coarse class (`InvalidRequestError`…), when the service sent one. */
  readonly type: string | null;
  /** For a 429 (or a 503 that sent one): the seconds `Retry-After` asked to wait. */
  readonly retryAfter: number | null;

  constructor(fields: {
    status: number;
    code: string;
    detail: string;
    requestId?: string | null;
    type?: string | null;
    retryAfter?: number | null;
    cause?: unknown;
  }) {
    super(`${fields.status ? `${fields.status} ` : ''}${fields.code}: ${fields.detail}`, { cause: fields.cause });
    this.status = fields.status;
    this.code = fields.code;
    this.detail = fields.detail;
    this.requestId = fields.requestId ?? null;
    this.type = fields.type ?? null;
    this.retryAfter = fields.retryAfter ?? null;
  }

  /** An error answer, read from its body: the `/v1` envelope, the token endpoint's OAuth shape, or neither. */
  static async fromResponse(response: Response, retryAfter: number | null = null): Promise<ApiError> {
    const requestId = response.headers.get('x-request-id');
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    const envelope = (body as { error?: unknown } | null)?.error;
    if (envelope && typeof envelope === 'object') {
      const error = envelope as { code?: string; detail?: string; type?: string; request_id?: string };
      return new ApiError({
        status: response.status,
        code: error.code ?? `HTTP_${response.status}`,
        detail: error.detail ?? response.statusText,
        type: error.type ?? null,
        requestId: error.request_id ?? requestId,
        retryAfter,
      });
    }
    if (typeof envelope === 'string') {
      const oauth = body as { error: string; error_description?: string };
      return new ApiError({ status: response.status, code: oauth.error, detail: oauth.error_description ?? '', requestId, retryAfter });
    }
    return new ApiError({
      status: response.status,
      code: `HTTP_${response.status}`,
      detail: response.statusText || 'no error body',
      requestId,
      retryAfter,
    });
  }
}

/** A webhook whose signature, timestamp or body did not verify: answer it 400 and ignore it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
