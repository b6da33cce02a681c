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

/**
 * Keys of request-scoped state kept in nestjs-cls (rather than in request-scoped providers):
 * the principal, and the statements of the request's read-only tenant transaction.
 */
export const CTX = {
  principal: 'principal',
  tenantSql: 'tenantSql',
  /** Who a token request is for, once known: recorded in the audit trail (never the secret). */
  tokenSubject: 'tokenSubject',
  /** The rate-limit verdict of the request, once counted (read by GET /v1/context). */
  rateLimit: 'rateLimit',
} as const;

/** The company and client of a token request, as far as they are known. */
export interface TokenSubject {
  client?: string;
  company?: string;
}
