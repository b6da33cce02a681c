import { ApiError } from '../common/errors/api-error';
import { AuthErrors } from './auth-errors';

export const CLIENT_CREDENTIALS_GRANT = 'client_credentials';

/** A token request, read and checked for form (not yet for who sent it). */
export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  /** Whether the client authenticated with HTTP Basic (its failures answer a Basic challenge). */
  basic: boolean;
  /** Requested scope names; undefined when `scope` was omitted. */
  scope?: string[];
}

const FIELDS = ['grant_type', 'client_id', 'client_secret', 'scope'] as const;
type Field = (typeof FIELDS)[number];

/**
 * Reads `POST /oauth/token` (RFC 6749 §4.4 and §2.3.1): the parsed form body and the
 * Authorization header. Parameters given twice are `invalid_request`; parameters sent
 * without a value count as omitted (RFC 6749 §3.2), except `scope`: a scope is one or more
 * names (§3.3), and omitting it grants every scope of the credential, so `scope=` (or only
 * spaces) is refused with `invalid_scope` rather than read as "everything"; unknown
 * parameters are ignored (§3.2).
 * The client authenticates either in the body or with HTTP Basic, never both.
 */
export function readTokenRequest(body: unknown, authorization: string | undefined): TokenRequest {
  const form = readFields(body);
  if (form.grant_type === undefined) throw new ApiError('INVALID_REQUEST', 'grant_type is required; use grant_type=client_credentials.');
  if (form.grant_type !== CLIENT_CREDENTIALS_GRANT)
    throw new ApiError('UNSUPPORTED_GRANT_TYPE', 'Only grant_type=client_credentials is supported.');
  const scope = readScope(body);

  if (authorization !== undefined) {
    const basic = readBasic(authorization);
    if (form.client_secret !== undefined || (form.client_id !== undefined && form.client_id !== basic.clientId)) {
      throw new ApiError(
        'INVALID_REQUEST',
        'Authenticate the client either with HTTP Basic or with client_id and client_secret in the body, not both.',
      );
    }
    return { ...basic, basic: true, scope };
  }
  if (form.client_id === undefined || form.client_secret === undefined) throw AuthErrors.invalidClient(false);
  return { clientId: form.client_id, clientSecret: form.client_secret, basic: false, scope };
}

/**
 * The client id a token request names (HTTP Basic first, as `readTokenRequest` reads it),
 * without judging the rest of the request: the token rate limit counts per client id
 * before the request is checked.
 */
export function claimedClientId(body: unknown, authorization: string | undefined): string | undefined {
  try {
    if (authorization !== undefined) return readBasic(authorization).clientId;
    const value = (body && typeof body === 'object' ? (body as Record<string, unknown>) : {}).client_id;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The scope names asked for; undefined when `scope` is absent; `invalid_scope` when it is present but names none. */
function readScope(body: unknown): string[] | undefined {
  const value = (body as Record<string, unknown> | null | undefined)?.scope;
  if (value === undefined) return undefined;
  const names = String(value).split(' ').filter(Boolean);
  if (!names.length) throw new ApiError('INVALID_SCOPE', 'scope must name one or more scopes; omit it to ask for every scope of the client.');
  return names;
}

function readFields(body: unknown): Partial<Record<Field, string>> {
  const source = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const form: Partial<Record<Field, string>> = {};
  for (const field of FIELDS) {
    if (!Object.prototype.hasOwnProperty.call(source, field)) continue;
    const value = source[field];
    if (typeof value !== 'string') throw new ApiError('INVALID_REQUEST', `${field} must be given once.`);
    if (value !== '') form[field] = value;
  }
  return form;
}

/** `Basic base64(form-encoded id ":" form-encoded secret)`; anything else fails client authentication. */
function readBasic(authorization: string): { clientId: string; clientSecret: string } {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(authorization);
  const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 0) throw AuthErrors.invalidClient(true);
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw AuthErrors.invalidClient(true);
  }
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}
