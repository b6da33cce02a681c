import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError, verifyWebhook } from '../src/index.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const event = {
  type: 'meeting.updated',
  timestamp: '2024-05-01T10:00:00.000Z',
  data: { change_id: 'chg_1', object: 'meeting', object_id: 'mtg_1', parent_id: null, changed: ['transcript'], cursor: 'cur_1' },
};
const raw = JSON.stringify(event);

/** The three Standard Webhooks headers of `payload`, signed with `secret` at `at`. */
function signed(secret: string, payload: string, at = new Date(), id = 'msg_1'): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, payload),
  };
}

function verificationError(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('expected a WebhookVerificationError, nothing was thrown');
}

describe('verifyWebhook', () => {
  const secret = newSecret();

  it('verifies a delivery signed with the secret and returns the typed event', () => {
    expect(verifyWebhook(signed(secret, raw), raw, secret)).toEqual(event);
  });

  it('accepts the raw body as bytes', () => {
    const bytes = new TextEncoder().encode(`xx${raw}`).subarray(2); // a view with an offset
    expect(verifyWebhook(signed(secret, raw), bytes, secret)).toEqual(event);
  });

  it('verifies with [wrongSecret, secret] (a rotation)', () => {
    expect(verifyWebhook(signed(secret, raw), raw, [newSecret(), secret])).toEqual(event);
  });

  it('accepts Node-style header records (any case, array values) and a fetch Headers', () => {
    const headers = signed(secret, raw);
    const node = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': [headers['webhook-timestamp']!],
      'webhook-signature': headers['webhook-signature'],
      'content-type': 'application/json',
      'x-absent': undefined,
    };
    expect(verifyWebhook(node, raw, secret)).toEqual(event);
    expect(verifyWebhook(new Headers(headers), raw, secret)).toEqual(event);
  });

  it('refuses a tampered body', () => {
    const tampered = raw.replace('mtg_1', 'mtg_2');
    const error = verificationError(() => verifyWebhook(signed(secret, raw), tampered, secret));
    expect(error.name).toBe('WebhookVerificationError');
  });

  it('refuses a wrong secret, and [wrong, other wrong]', () => {
    verificationError(() => verifyWebhook(signed(secret, raw), raw, newSecret()));
    verificationError(() => verifyWebhook(signed(secret, raw), raw, [newSecret(), newSecret()]));
  });

  it('refuses a timestamp older than five minutes, and accepts one four minutes old', () => {
    const old = new Date(Date.now() - 5 * 60_000 - 30_000);
    verificationError(() => verifyWebhook(signed(secret, raw, old), raw, secret));
    expect(verifyWebhook(signed(secret, raw, new Date(Date.now() - 4 * 60_000)), raw, secret)).toEqual(event);
  });

  it('refuses a timestamp more than five minutes in the future', () => {
    verificationError(() => verifyWebhook(signed(secret, raw, new Date(Date.now() + 6 * 60_000)), raw, secret));
  });

  it('refuses a delivery without its signature header', () => {
    const { 'webhook-signature': _dropped, ...headers } = signed(secret, raw);
    verificationError(() => verifyWebhook(headers, raw, secret));
  });

  it('needs at least one secret', () => {
    expect(() => verifyWebhook(signed(secret, raw), raw, [])).toThrow(TypeError);
  });
});
