import { DeliveryStatus } from './webhook.vocabulary';

/*
 * The shapes a webhook delivery takes on its way through the state machine
 * (WebhookDeliveries): created from the feed, sent, its attempt's outcome recorded, listed.
 */

/** One delivery as `webhooks:deliveries` lists it. */
export interface DeliveryRow {
  /** Internal id: the list's keyset position. */
  id: string;
  delivery_id: string;
  change_id: string;
  event_type: string;
  replay: boolean;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  committed_at: string;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  /** Held by a job: being attempted now. */
  held: boolean;
}

/** A delivery to send: its id, the change it reports and the body exactly as signed. */
export interface Sendable {
  id: string;
  change_id: string;
  event_type: string;
  payload: string;
  attempts: number;
}

/** What one attempt at one delivery came to, and what follows. */
export interface Outcome {
  id: string;
  status: number | null;
  error: string | null;
  latencyMs: number;
  /** The delivery's state after this attempt, and when it is next tried (pending only). */
  next: DeliveryStatus;
  nextAttemptAt: Date | null;
}

/** A new delivery: one change entry for one endpoint. */
export interface NewDelivery {
  change_id: string;
  event_type: string;
  committed_at: string;
  payload: string;
}

/** What went wrong in a delivery's last attempt, as the API shows it (`last_error`). */
export const DELIVERY_ERROR_KINDS = ['timeout', 'connection', 'tls', 'refused_address', 'non_2xx'] as const;
export type DeliveryErrorKind = (typeof DELIVERY_ERROR_KINDS)[number];

/** OpenSSL's certificate-verification codes that reasonOf's TLS test (CERT, SSL, TLS, EPROTO) misses. */
const TLS_VERIFY_CODE = /^(UNABLE_TO_\w+|CRL_\w+|INVALID_CA|INVALID_PURPOSE|PATH_LENGTH_EXCEEDED|HOSTNAME_MISMATCH)$/;

/**
 * The kind of a recorded reason (`last_error`, free text the CLI prints as it is), null for none.
 * The reasons are phrased in webhook-transport.ts (reasonOf, SOCKET_REASONS, judge, its
 * AttemptFailures) and webhook-sender.ts (`not sent: …`); the spec judges each one. In order:
 * - `not sent: …` (the secret could not be opened, so nothing left this process): `connection`,
 *   the kind for an attempt that got no answer for a reason other than those below; checked first
 *   since its tail is an error's message;
 * - `refused destination: …` (the URL, or an address its name resolved to, refused): `refused_address`;
 * - `TLS failed (…)`: `tls`; and `request failed (CODE)` for the certificate checks whose OpenSSL
 *   code names no CERT, SSL or TLS (UNABLE_TO_VERIFY_LEAF_SIGNATURE, an incomplete chain, the
 *   commonest; INVALID_CA, …), which reasonOf does not phrase as TLS failures;
 * - `HTTP 500`, `redirect not followed (HTTP 302)`: an answer that was not a 2xx, `non_2xx`;
 * - `timed out after …`, `connect timed out …`: `timeout`;
 * - anything else (connection refused, reset or closed before an answer, host or network
 *   unreachable, a name that does not resolve, an answer that is not HTTP, a request header
 *   Node refused, the transport closed at shutdown, a reason phrased later): `connection`.
 */
export function errorKindOf(reason: string | null): DeliveryErrorKind | null {
  if (reason === null) return null;
  if (reason.startsWith('not sent:')) return 'connection';
  if (reason.startsWith('refused destination:')) return 'refused_address';
  if (reason.startsWith('TLS failed')) return 'tls';
  if (TLS_VERIFY_CODE.test(/^request failed \((\w+)\)$/.exec(reason)?.[1] ?? '')) return 'tls';
  if (/^(HTTP \d+|redirect not followed \(HTTP \d+\))$/.test(reason)) return 'non_2xx';
  if (/^(connect )?timed out\b/.test(reason)) return 'timeout';
  return 'connection';
}
