import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { ApiError } from '../common/errors/api-error';
import { RequestStore, TokenSubject } from '../common/http/request-context';
import { parseId } from '../common/ids/public-id';
import { FailedAuthLimit } from '../rate-limit/failed-auth-limit';
import { AccessTokens } from './access-tokens';
import { CredentialsService } from './credentials.service';
import { ALL_SCOPES } from '../contract/scopes';
import { readTokenRequest } from './token-request';

/** The 200 body of `POST /oauth/token` (RFC 6749 §5.1; no refresh token). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** The client-credentials grant. */
@Injectable()
export class TokenService {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly tokens: AccessTokens,
    private readonly cls: ClsService<RequestStore>,
    private readonly failures: FailedAuthLimit,
  ) {}

  async issue(body: unknown, authorization: string | undefined, address: string | undefined): Promise<TokenResponse> {
    const request = readTokenRequest(body, authorization);
    // For the audit trail: the client id claimed (when it is shaped like one), and its company when that client exists.
    const subject: TokenSubject = { client: parseId('client', request.clientId) ?? undefined };
    this.cls.set('tokenSubject', subject);
    // An address that failed too often is refused before the secret is checked (a hash, a lookup).
    await this.failures.refuseIfExceeded(address);
    const client = await this.credentials
      .authenticateClient(request.clientId, request.clientSecret, address, request.basic, subject)
      .catch(async (error: unknown) => {
        if (error instanceof ApiError && error.status === 401) await this.failures.failed(address);
        throw error;
      });
    const scopes = grantedScopes(request.scope, client.scopes);
    const issued = this.tokens.issue({
      clientId: client.clientId,
      companyPublicId: client.companyPublicId,
      scopes,
      version: client.version,
      secretId: client.issuingSecret,
    });
    return { access_token: issued.token, token_type: 'Bearer', expires_in: issued.expiresIn, scope: scopes.join(' ') };
  }
}

/**
 * `scope` omitted: every scope of the credential. Otherwise exactly the requested ones,
 * each of which the credential must hold. Returned in the scope table's order.
 */
function grantedScopes(requested: string[] | undefined, held: readonly string[]): string[] {
  if (requested === undefined) return ALL_SCOPES.filter((s) => held.includes(s));
  if (requested.some((s) => !held.includes(s) || !(ALL_SCOPES as string[]).includes(s))) {
    throw new ApiError(
      'INVALID_SCOPE',
      `A requested scope is unknown or not granted to this client; scopes are space-separated names from: ${ALL_SCOPES.join(' ')}.`,
    );
  }
  return ALL_SCOPES.filter((s) => requested.includes(s));
}
