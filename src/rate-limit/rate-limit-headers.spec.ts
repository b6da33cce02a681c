import fc from 'fast-check';
import { parseRateLimitField } from '../../test/support/rate-limit-headers';
import { formatRateLimit, formatRateLimitPolicy } from './rate-limit-headers';
import { RATE_LIMIT_POLICIES } from './rate-limit-policies';

describe('RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-11)', () => {
  it('writes RateLimit-Policy exactly as the API decisions show it', () => {
    expect(
      formatRateLimitPolicy([
        { policy: 'client', limit: 600, windowSeconds: 60 },
        { policy: 'company', limit: 1800, windowSeconds: 60 },
      ]),
    ).toBe('"client";q=600;w=60, "company";q=1800;w=60');
  });

  it('writes RateLimit exactly as the API decisions show it', () => {
    expect(
      formatRateLimit([
        { policy: 'client', remaining: 599, resetSeconds: 60 },
        { policy: 'company', remaining: 1790, resetSeconds: 42 },
      ]),
    ).toBe('"client";r=599;t=60, "company";r=1790;t=42');
  });

  const policies = fc.uniqueArray(fc.constantFrom(...RATE_LIMIT_POLICIES), { minLength: 1 });
  const count = fc.integer({ min: 0, max: 1_000_000_000 });

  it('parses back, through a structured-field parser, to the quotas it was written from', () => {
    fc.assert(
      fc.property(policies, fc.array(fc.tuple(count, count), { minLength: 5, maxLength: 5 }), (names, numbers) => {
        const quotas = names.map((policy, i) => ({ policy, limit: numbers[i][0], windowSeconds: numbers[i][1] }));
        const parsed = parseRateLimitField(formatRateLimitPolicy(quotas));
        expect([...parsed]).toEqual(quotas.map((q) => [q.policy, { q: q.limit, w: q.windowSeconds }]));
      }),
    );
  });

  it('parses back, through a structured-field parser, to the states it was written from', () => {
    fc.assert(
      fc.property(policies, fc.array(fc.tuple(count, count), { minLength: 5, maxLength: 5 }), (names, numbers) => {
        const states = names.map((policy, i) => ({ policy, remaining: numbers[i][0], resetSeconds: numbers[i][1] }));
        const parsed = parseRateLimitField(formatRateLimit(states));
        expect([...parsed]).toEqual(states.map((s) => [s.policy, { r: s.remaining, t: s.resetSeconds }]));
      }),
    );
  });
});
