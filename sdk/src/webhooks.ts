import { Webhook } from 'standardwebhooks';
import type { Change } from './types.js';
import { WebhookVerificationError } from './errors.js';

/**
 * A webhook event: one change entry, thin. `type` is `<object>.<action>`, `timestamp` the change's
 * `committed_at`, `data` the entry (its id as `change_id`) and `cursor`, which resumes
 * `GET /v1/changes` just after this change (bound to the endpoint's types).
 */
export interface WebhookEvent {
  type: `${Change['object']}.${Change['action']}`;
  timestamp: string;
  data: {
    change_id: string;
    object: Change['object'];
    object_id: string;
    parent_id: string | null;
    changed: Change['changed'];
    cursor: string;
  };
}

/**
 * A test event (`api.webhookEndpoints.test`, `POST /v1/webhook-endpoints/{endpoint_id}/test`): signed
 * like every event, naming no change. `verifyWebhook` returns it typed as a `WebhookEvent` (its
 * return type stays that of the change events, so that programs reading `data.cursor` keep
 * compiling); check `type` first:
 * `if ((event.type as string) === 'webhook.test') { const test = event as unknown as WebhookTestEvent; … }`.
 */
export interface WebhookTestEvent {
  type: 'webhook.test';
  timestamp: string;
  data: { endpoint_id: string };
}

/** Header maps as Node's `IncomingHttpHeaders`, a fetch `Headers`, or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function headerRecord(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => (out[name.toLowerCase()] = value));
    return out;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Verifies a delivery the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`: HMAC-SHA256 over id, timestamp and the **raw** body, timestamps older or
 * newer than five minutes refused) and returns the typed event. `secret` is the endpoint's
 * `whsec_…`; during a rotation pass both (`[newSecret, oldSecret]`): any one verifying is enough.
 * Throws `WebhookVerificationError` otherwise: answer 400 and ignore the request.
 */
export function verifyWebhook(headers: WebhookHeaders, body: string | Uint8Array, secret: string | readonly string[]): WebhookEvent {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (!secrets.length) throw new TypeError('verifyWebhook needs at least one secret');
  const record = headerRecord(headers);
  const payload = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  // A malformed secret is the receiver's mistake, not a bad delivery: it throws as it is.
  const verifiers = secrets.map((key) => new Webhook(key));
  let last: unknown;
  for (const verifier of verifiers) {
    try {
      return verifier.verify(payload, record) as WebhookEvent;
    } catch (error) {
      last = error;
    }
  }
  throw new WebhookVerificationError((last as Error)?.message ?? 'the webhook did not verify', { cause: last });
}
