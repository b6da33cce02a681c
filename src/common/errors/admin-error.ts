/**
 * The admin CLI's error codes, one table like the API's (error-codes.ts): what each means to
 * an operator. The CLI prints a failure as `{"error": {"code", "message"}}` with `--json`,
 * else `error: <message> (<code>)` on stderr, and exits 1.
 */
export const ADMIN_ERROR_CODES = {
  INVALID_ARGUMENTS: 'An option is missing, unknown or malformed; nothing was changed.',
  INVALID_CONFIGURATION: 'An environment variable is invalid (the message names it); nothing was touched.',
  COMPANY_NOT_FOUND: 'No company has that id.',
  CLIENT_NOT_FOUND: 'No client has that id.',
  CLIENT_REVOKED: 'The client is revoked: revocation is final, create a new client.',
  ROTATION_IN_PROGRESS: 'Two secrets are valid already; wait for the grace (or the webhook overlap) to end, or expire the previous secret.',
  WEBHOOK_ENDPOINT_NOT_FOUND: 'No webhook endpoint has that id.',
  WEBHOOK_ENDPOINT_LIMIT: 'The company has WEBHOOK_ENDPOINTS_MAX endpoints already; remove one first.',
  WEBHOOK_URL_REFUSED:
    'The webhook URL can never be a destination: not https, or an address that is private, loopback, link-local or metadata (allowed with WEBHOOK_ALLOW_PRIVATE=1, for development).',
  EMBEDDED_DATABASE_UNAVAILABLE: 'The embedded PostgreSQL could not be started or reached (the message says what to do).',
  DATABASE_UNAVAILABLE: 'PostgreSQL could not be reached or refused the work for now; retry.',
  REPLICA_BEHIND:
    'The change is committed on the primary, but a hot standby of DATABASE_REPLICA_URLS (the message names it) did not replay it within REPLICA_REVOCATION_WAIT_SECONDS: tokens may still be accepted there until it does. Run the command again (it waits again) once the standby caught up, or take it out of DATABASE_REPLICA_URLS.',
  INTERNAL_ERROR: 'Anything else: a bug, with its message.',
} as const;

export type AdminErrorCode = keyof typeof ADMIN_ERROR_CODES;

/** A refused admin operation (CLI commands, seeds), with a code of ADMIN_ERROR_CODES. */
export class AdminError extends Error {
  constructor(
    readonly code: AdminErrorCode,
    message: string,
  ) {
    super(message);
  }
}
