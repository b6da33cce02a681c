import { Injectable } from '@nestjs/common';
import { AddressAllowList } from '../clients/address-allow-list';
import { clientSecretMatches, secretFingerprint } from '../clients/client-secret';
import { ID_BODY_LENGTH, ID_PREFIX, parseId } from '../common/ids/public-id';
import { Principal, TokenSubject } from '../common/http/request-context';
import { TenantTransaction } from '../database/tenant-transaction';
import { AccessTokenClaims, AccessTokens } from './access-tokens';
import { AuthErrors } from './auth-errors';
import { ClientState, CredentialsRepository } from './credentials.repository';

/** Looked up in place of a malformed client id, so every token request runs the same query. */
const NO_SUCH_CLIENT = ID_PREFIX.client + '0'.repeat(ID_BODY_LENGTH);

/**
 * Decides who is calling: a client with its secret (token endpoint) or a bearer token
 * (every `/v1` request). Both check the credential's current state in the database, so a
 * revocation, a disabled client or API_ACCESS turned off acts on the very next request on
 * every instance. Order of outcomes: 401 (who) before 403 API_ACCESS_DISABLED (what).
 */
@Injectable()
export class CredentialsService {
  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly tokens: AccessTokens,
    private readonly tenant: TenantTransaction,
  ) {}

  async authenticateClient(
    clientId: string,
    secret: string,
    address: string | undefined,
    basic: boolean,
    subject?: TokenSubject,
  ): Promise<ClientState & { issuingSecret: string }> {
    const found = await this.credentials.credentialsOf(parseId('client', clientId) ?? NO_SUCH_CLIENT);
    // A request naming one of a company's clients is that company's to see in its trail, refused or not.
    if (found && subject) subject.company = found.companyPublicId;
    // Compared even when the client is unknown, so both failures take the same time.
    const secretOk = clientSecretMatches(secret, found?.secretHashes ?? []);
    if (!found || !secretOk || found.status !== 'active' || !AddressAllowList.of(found.cidrs).permits(address)) {
      throw AuthErrors.invalidClient(basic);
    }
    if (!found.apiAccess) throw AuthErrors.apiAccessDisabled();
    // The token records which secret was presented, so that ending that secret ends the token.
    return { ...found, issuingSecret: secretFingerprint(secret) };
  }

  /**
   * The caller of a bearer token. The client's state is read in the round trip that opens the
   * request's tenant transaction (abandoned at once when the token is refused), taken in the turn
   * of the company the verified token names; `signal` aborts the wait when the client goes away.
   */
  async authenticateToken(token: string, address: string | undefined, signal?: AbortSignal): Promise<Principal> {
    const claims = this.tokens.verify(token);
    const clientId = parseId('client', claims.sub);
    const state = clientId ? await this.credentials.stateOpeningTenant(clientId, claims.company, signal) : null;
    try {
      return this.admit(claims, state, address);
    } catch (error) {
      await this.tenant.abandon();
      throw error;
    }
  }

  private admit(claims: AccessTokenClaims, state: ClientState | null, address: string | undefined): Principal {
    if (
      !state ||
      state.status !== 'active' ||
      state.version !== claims.ver ||
      (claims.sec !== undefined && !state.secretIds.includes(claims.sec)) ||
      state.companyPublicId !== claims.company ||
      !AddressAllowList.of(state.cidrs).permits(address)
    ) {
      throw AuthErrors.invalidToken('The access token is no longer valid; request a new one.');
    }
    if (!state.apiAccess) throw AuthErrors.apiAccessDisabled();
    return {
      companyId: state.companyId,
      companyPublicId: state.companyPublicId,
      companyName: state.companyName,
      clientId: state.clientId,
      clientName: state.clientName,
      // A scope removed from the client takes effect on its tokens at once: the token carries
      // what it was granted, and keeps only what the client still holds.
      scopes: claims.scope.split(' ').filter((scope) => scope && state.scopes.includes(scope)),
    };
  }
}
