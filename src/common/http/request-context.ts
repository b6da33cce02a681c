import { ClsService, ClsStore } from 'nestjs-cls';

/** Who is calling: set by the bearer guard, read by the tenant transaction and the services. */
export interface Principal {
  /** Internal company id: only for the database session setting, never in a response. */
  companyId: string;
  companyPublicId: string;
  companyName: string;
  clientId: string;
  clientName: string;
  /** The scopes the token carries. */
  scopes: string[];
}

/** The company and client of a token request, as far as they are known. */
export interface TokenSubject {
  client?: string;
  company?: string;
}

/**
 * Request-scoped state, kept in nestjs-cls rather than in request-scoped providers. Each slot
 * is written by one part of the pipeline; a feature that owns a slot of its own type adds it
 * where it writes it, by augmenting this interface (the tenant transaction's statements in
 * `database/tenant-sql.ts`, the rate-limit count in `rate-limit/rate-limiter.ts`).
 */
export interface RequestStore extends ClsStore {
  /** The authenticated caller of a `/v1` request (bearer strategy). */
  principal?: Principal;
  /** Who a token request is for, once known: recorded in the audit trail (never the secret). */
  tokenSubject?: TokenSubject;
  /** The ids a request's audit row names, when the answer's body does not (the webhook routes: the endpoint, the delivery). */
  auditResources?: string[];
}

/** The caller of this request; called only behind the bearer guard, so a missing one is a wiring bug. */
export function principalOf(cls: ClsService<RequestStore>): Principal {
  const principal = cls.get('principal');
  if (!principal) throw new Error('no authenticated caller in this request context');
  return principal;
}

/** The caller, when the request has one (a request context may be absent: requests cut before the pipeline). */
export function callerOf(cls: ClsService<RequestStore>): { principal?: Principal; tokenSubject?: TokenSubject } {
  if (!cls.isActive()) return {};
  return { principal: cls.get('principal'), tokenSubject: cls.get('tokenSubject') };
}
