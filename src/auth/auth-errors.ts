import { ApiError } from '../common/errors/api-error';

/** The realm named in every authentication challenge. */
export const AUTH_REALM = 'conversation-read-api';

/** `WWW-Authenticate: Bearer …` per RFC 6750 §3; values are fixed texts, never client input. */
function bearerChallenge(params: Record<string, string> = {}): Record<string, string> {
  const rest = Object.entries(params).map(([k, v]) => `, ${k}="${v}"`);
  return { 'WWW-Authenticate': `Bearer realm="${AUTH_REALM}"${rest.join('')}` };
}

/** The errors of authentication and authorization, each with the challenge its status calls for. */
export const AuthErrors = {
  /** No bearer token: a bare challenge, no error code (RFC 6750 §3.1). */
  missingToken(): ApiError {
    return new ApiError('MISSING_ACCESS_TOKEN', 'Send an access token as "Authorization: Bearer <token>".', bearerChallenge());
  },

  invalidToken(detail = 'The access token is invalid; request a new one.'): ApiError {
    return new ApiError('INVALID_ACCESS_TOKEN', detail, bearerChallenge({ error: 'invalid_token', error_description: detail }));
  },

  insufficientScope(required: readonly string[], anyOf = false): ApiError {
    const scope = required.join(' ');
    return new ApiError(
      'INSUFFICIENT_SCOPE',
      anyOf ? `This route needs at least one of the scopes: ${scope}.` : `This route needs the scopes: ${scope}.`,
      bearerChallenge({ error: 'insufficient_scope', scope }),
    );
  },

  apiAccessDisabled(): ApiError {
    return new ApiError('API_ACCESS_DISABLED', 'API access is turned off for this company (feature API_ACCESS).');
  },

  /**
   * Failed client authentication at the token endpoint. One text for every cause (unknown
   * client, wrong secret, disabled, revoked, address not allowed), so a caller learns
   * nothing about which. With Basic, the Basic challenge (RFC 6749 §5.2).
   */
  invalidClient(basic: boolean): ApiError {
    const headers: Record<string, string> = basic ? { 'WWW-Authenticate': `Basic realm="${AUTH_REALM}", charset="UTF-8"` } : {};
    return new ApiError('INVALID_CLIENT', 'Client authentication failed.', headers);
  },
};
