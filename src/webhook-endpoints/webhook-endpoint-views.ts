import { CHANGE_OBJECTS } from '../changes/change.vocabulary';
import { DeliveryRow, errorKindOf } from '../webhooks/webhook-delivery';
import { EndpointView } from '../webhooks/webhook-endpoints.repository';
import { publicStateOf } from '../webhooks/webhook.vocabulary';
import { WebhookDeliveryDto, WebhookEndpointDto } from './webhook-endpoint.dto';

/** An endpoint as the API shows it (an admin's endpoint of every type lists them all). */
export function endpointView(row: EndpointView): WebhookEndpointDto {
  return {
    object: 'webhook_endpoint',
    id: row.public_id,
    url: row.url,
    types: row.types ?? [...CHANGE_OBJECTS],
    description: row.description,
    enabled: row.enabled,
    state: publicStateOf(row),
    failing_since: row.failing_since,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A delivery as the API shows it: what became of it, never its body. */
export function deliveryView(row: DeliveryRow): WebhookDeliveryDto {
  return {
    object: 'webhook_delivery',
    id: row.delivery_id,
    event_id: row.change_id,
    type: row.event_type,
    state: row.status,
    attempts: row.attempts,
    created_at: row.created_at,
    last_attempt_at: row.last_attempt_at,
    next_attempt_at: row.status === 'pending' && !row.held ? row.next_attempt_at : null,
    last_response_status: row.last_status,
    last_error: errorKindOf(row.last_error),
    latency_ms: row.last_latency_ms,
  };
}
