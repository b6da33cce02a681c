import { ChangeAction, ChangedPart, ChangeObject } from '../changes/change.vocabulary';

/** `failing` once a delivery used up its retries, until the next success. */
export const ENDPOINT_STATES = ['active', 'failing'] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];

/**
 * The type of the test event (`POST /v1/webhook-endpoints/{id}/test`): the one delivery a paused
 * endpoint (`enabled = false`) still receives (WebhookDeliveries).
 */
export const TEST_EVENT_TYPE = 'webhook.test';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The endpoint's state as the API shows it: paused (`disabled`) before anything else, then failing. */
export const PUBLIC_ENDPOINT_STATES = ['enabled', 'disabled', 'failing'] as const;
export type PublicEndpointState = (typeof PUBLIC_ENDPOINT_STATES)[number];

export function publicStateOf(endpoint: { enabled: boolean; state: EndpointState }): PublicEndpointState {
  if (!endpoint.enabled) return 'disabled';
  return endpoint.state === 'failing' ? 'failing' : 'enabled';
}

/** The job queue (pg-boss): one job per batch of one endpoint's deliveries, one batch per endpoint at a time. */
export const QUEUE = 'webhook_batch';

/** What a job carries: the endpoint (the deliveries it holds name it: WebhookDeliveries.heldBy). */
export interface DeliveryJob {
  endpoint_id: string;
}

/** The event body: thin, pointing into the feed. */
export interface WebhookEvent {
  type: `${ChangeObject}.${ChangeAction}`;
  timestamp: string;
  data: {
    change_id: string;
    object: ChangeObject;
    object_id: string;
    parent_id: string | null;
    changed: ChangedPart[];
    /** Resumes the feed just after this change, bound to the endpoint's types. */
    cursor: string;
  };
}
