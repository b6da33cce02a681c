import * as crypto from 'node:crypto';

jest.mock('node:crypto', () => {
  const actual = jest.requireActual('node:crypto');
  return { ...actual, timingSafeEqual: jest.fn(actual.timingSafeEqual) };
});

import { clientSecretMatches, generateClientSecret, hashClientSecret, MAX_VALID_SECRETS } from './client-secret';

describe('client secrets', () => {
  it('are 256 random bits in base62 behind a recognisable prefix, never twice the same', () => {
    const secrets = new Set(Array.from({ length: 200 }, generateClientSecret));
    expect(secrets.size).toBe(200);
    for (const s of secrets) expect(s).toMatch(/^secret_[0-9A-Za-z]{43}$/);
  });

  it('match one of the valid hashes, and nothing else', () => {
    const [a, b] = [generateClientSecret(), generateClientSecret()];
    const valid = [hashClientSecret(a), hashClientSecret(b)];
    expect(clientSecretMatches(a, valid)).toBe(true);
    expect(clientSecretMatches(b, valid)).toBe(true);
    expect(clientSecretMatches(`${a}x`, valid)).toBe(false);
    expect(clientSecretMatches(a, [])).toBe(false);
    expect(clientSecretMatches('', valid)).toBe(false);
  });

  it('do the same constant-time work whether the client is unknown, has one secret or two, matching or not', () => {
    const spy = jest.mocked(crypto.timingSafeEqual);
    const secret = generateClientSecret();
    const cases: Buffer[][] = [[], [hashClientSecret(secret)], [hashClientSecret('other'), hashClientSecret(secret)]];
    for (const valid of cases) {
      for (const candidate of [secret, 'wrong']) {
        spy.mockClear();
        clientSecretMatches(candidate, valid);
        expect(spy).toHaveBeenCalledTimes(MAX_VALID_SECRETS);
      }
    }
  });
});
