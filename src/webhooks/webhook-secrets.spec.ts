import { Webhook } from 'standardwebhooks';
import { generateSigningSecret, SecretBox, signatureHeader } from './webhook-secrets';

describe('webhook signatures', () => {
  const body = JSON.stringify({ type: 'meeting.created', timestamp: '2026-11-23T10:00:00.000000Z', data: { change_id: 'chg_1' } });
  const now = Math.floor(Date.now() / 1000);
  const headers = (signature: string, id = 'chg_1', timestamp = now) => ({
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  });

  it('verify with the standardwebhooks package: one secret, then two during a rotation (either verifies)', () => {
    const [current, previous] = [generateSigningSecret(), generateSigningSecret()];
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(current).verify(body, headers(signatureHeader([current], 'chg_1', now, body)))).toEqual(JSON.parse(body));
    const both = signatureHeader([current, previous], 'chg_1', now, body);
    expect(both.split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers(both))).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers(both))).not.toThrow();
  });

  it('do not verify with another secret, another id, another timestamp or another body', () => {
    const secret = generateSigningSecret();
    const signature = signatureHeader([secret], 'chg_1', now, body);
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers(signature))).toThrow();
    expect(() => new Webhook(secret).verify(body, headers(signature, 'chg_2'))).toThrow();
    expect(() => new Webhook(secret).verify(body, headers(signature, 'chg_1', now - 1))).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers(signature))).toThrow();
  });
});

describe('SecretBox: signing secrets at rest', () => {
  const box = new SecretBox('a-webhook-secret-key-of-thirty-two-chars');

  it('opens what it sealed, for the same endpoint; the sealed text never holds the secret', () => {
    const secret = generateSigningSecret();
    const sealed = box.seal(secret, 'whe_A');
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(box.open(sealed, 'whe_A')).toBe(secret);
    expect(box.seal(secret, 'whe_A')).not.toBe(sealed); // a fresh IV each time
  });

  it('refuses another endpoint, another key, and any edit', () => {
    const sealed = box.seal(generateSigningSecret(), 'whe_A');
    expect(() => box.open(sealed, 'whe_B')).toThrow(/does not open/);
    expect(() => new SecretBox('another-webhook-secret-key-of-32-chars!').open(sealed, 'whe_A')).toThrow(/does not open/);
    const [v, iv, tag, data] = sealed.split('.');
    const flipped = `${data[0] === 'A' ? 'B' : 'A'}${data.slice(1)}`;
    expect(() => box.open([v, iv, tag, flipped].join('.'), 'whe_A')).toThrow(/does not open/);
    expect(() => box.open('plain-text', 'whe_A')).toThrow(/not a sealed/);
  });
});
