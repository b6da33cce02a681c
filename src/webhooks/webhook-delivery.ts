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
