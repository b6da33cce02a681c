import type { OpenAPIObject } from '@nestjs/swagger';
import type { OperationObject, ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

interface Header {
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

/** Every header the API sets on its answers, as the document declares them. */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description: 'Identifies the request for support; equal to `request_id` in the body where there is one.',
    schema: { type: 'string', pattern: '^req_[0-9A-Za-z]+$' },
  },
  'X-Content-Type-Options': { description: 'Answers are read as their declared type only.', schema: { type: 'string', const: 'nosniff' } },
  'Cache-Control': { description: 'Answers are never cached.', schema: { type: 'string', const: 'no-store' } },
  Pragma: { description: 'Answers are never cached (HTTP/1.0 caches).', schema: { type: 'string', const: 'no-cache' } },
  'RateLimit-Policy': {
    description:
      'The policies governing the route, e.g. `"client";q=600;w=60, "company";q=1800;w=60` (draft-ietf-httpapi-ratelimit-headers-11). Sent on every answer of a limited route.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'Per policy, requests remaining and seconds until the window resets, e.g. `"client";r=599;t=60, "company";r=1790;t=42`. Sent on every answer to a request that was counted.',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Whole seconds until the violated window ends (at least 1).', schema: { type: 'integer', minimum: 1 } },
  'WWW-Authenticate': {
    description: 'The authentication challenge (RFC 6750 `Bearer` on `/v1`, `Basic` at the token endpoint when Basic was used).',
    schema: { type: 'string' },
  },
  Allow: { description: 'The methods the path answers (`405` only).', schema: { type: 'string' } },
  Vary: {
    description:
      'Names `Accept-Encoding` on every answer that may be compressed, and `Accept` on the captions routes (their format depends on it): caches must keep one copy per value.',
    schema: { type: 'string' },
  },
  'Content-Encoding': {
    description: 'The body is compressed (`br` or `gzip`) because the request asked for it in `Accept-Encoding` and it is at least 1 KiB.',
    schema: { type: 'string', enum: ['br', 'gzip'] },
  },
} satisfies Record<string, Header>;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** Which headers an answer carries: always (true), sometimes (false); absent names never. */
type HeaderPresence = Partial<Record<ResponseHeaderName, boolean>>;

/** Any answer may be compressed (common/http/compression.middleware.ts). */
const COMPRESSION: HeaderPresence = { Vary: false, 'Content-Encoding': false };

/**
 * The headers of one documented answer, from where it is produced in the pipeline: the request
 * id and no-store headers on everything; `RateLimit-Policy` before anything can refuse;
 * `RateLimit` only once the request was counted (never on a `/v1` 401, nor on a token body the
 * parser refused); challenges on 401 and on a scope 403.
 */
export function headersOf(kind: 'bearer' | 'token', status: number): HeaderPresence {
  const headers: HeaderPresence = {
    'X-Request-Id': true,
    'X-Content-Type-Options': true,
    'Cache-Control': true,
    Pragma: true,
    'RateLimit-Policy': true,
    ...COMPRESSION,
  };
  const counted = kind === 'bearer' ? status !== 401 : status !== 413 && status !== 415;
  if (counted) headers.RateLimit = status === 200 || status === 429;
  if (status === 429) headers['Retry-After'] = true;
  if (kind === 'bearer' && status === 401) headers['WWW-Authenticate'] = true;
  if (kind === 'bearer' && status === 403) headers['WWW-Authenticate'] = false; // INSUFFICIENT_SCOPE, not API_ACCESS_DISABLED
  if (kind === 'token' && status === 401) headers['WWW-Authenticate'] = false; // with Basic only
  return headers;
}

/**
 * Declares on every response of every operation exactly the headers the API sends with it, and
 * the `405` answers (with `Allow`) that documented paths give to other methods.
 */
export function documentResponseHeaders(document: OpenAPIObject, bearerScheme: string): void {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as OperationObject[]) {
      if (!operation?.responses) continue;
      const kind = operation.security?.some((requirement) => bearerScheme in requirement) ? 'bearer' : 'token';
      for (const [status, response] of Object.entries(operation.responses) as Array<[string, ResponseObject]>) {
        // The headers every answer carries, beside those the route declares of its own (the export's Feed-Cursor) or
        // more exactly (the captions' Vary, always there).
        const own = response.headers ?? {};
        const common = Object.entries(declared(headersOf(kind, Number(status)))).filter(([name]) => !(name in own));
        response.headers = { ...own, ...Object.fromEntries(common) };
      }
    }
  }
  const headers = declared({
    'X-Request-Id': true,
    'X-Content-Type-Options': true,
    'Cache-Control': true,
    Pragma: true,
    'RateLimit-Policy': false,
    Allow: true,
    ...COMPRESSION,
  });
  const methodNotAllowed = (schema: string, where: string) => ({
    description: `METHOD_NOT_ALLOWED: the path exists but does not answer this method (${where}).`,
    headers,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
  });
  document.components ??= {};
  document.components.responses = {
    ...document.components.responses,
    MethodNotAllowed: methodNotAllowed('ErrorEnvelope', 'every `/v1` route answers `GET` only'),
    TokenMethodNotAllowed: methodNotAllowed('OAuthErrorBody', 'the token endpoint answers `POST` only, in the OAuth error shape'),
  };
}

function declared(presence: HeaderPresence): Record<string, Header> {
  return Object.fromEntries(
    Object.entries(presence).map(([name, required]) => [name, { ...RESPONSE_HEADERS[name as ResponseHeaderName], required }]),
  );
}
