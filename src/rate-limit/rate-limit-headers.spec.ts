import fc from 'fast-check';
import { parseRateLimitField } from '../../test/support/rate-limit-headers';
import { formatRateLimit, formatRateLimitPolicy } from './rate-limit-headers';
import { RATE_LIMIT_POLICIES, RateLimitPolicyName } from '../contract/rate-limit-policies';

/** Each field: how it is written from (policy, two numbers), its parameter names, and the API decisions' example. */
const FIELDS = [
  {
    field: 'RateLimit-Policy',
    write: (members: Array<[RateLimitPolicyName, number, number]>) =>
      formatRateLimitPolicy(members.map(([policy, limit, windowSeconds]) => ({ policy, limit, windowSeconds }))),
    params: ['q', 'w'],
    example: {
      members: [
        ['client', 600, 60],
        ['company', 1800, 60],
      ],
      text: '"client";q=600;w=60, "company";q=1800;w=60',
    },
  },
  {
    field: 'RateLimit',
    write: (members: Array<[RateLimitPolicyName, number, number]>) =>
      formatRateLimit(members.map(([policy, remaining, resetSeconds]) => ({ policy, remaining, resetSeconds }))),
    params: ['r', 't'],
    example: {
      members: [
        ['client', 599, 60],
        ['company', 1790, 42],
      ],
      text: '"client";r=599;t=60, "company";r=1790;t=42',
    },
  },
] as const;

describe.each(FIELDS)('the $field field (draft-ietf-httpapi-ratelimit-headers-11)', ({ write, params, example }) => {
  it('is written exactly as the API decisions show it', () => {
    expect(write(example.members.map((m) => [...m]))).toBe(example.text);
  });

  it('parses back, through a structured-field parser, to what it was written from', () => {
    const count = fc.integer({ min: 0, max: 1_000_000_000 });
    const members = fc.uniqueArray(fc.tuple(fc.constantFrom(...RATE_LIMIT_POLICIES), count, count), {
      minLength: 1,
      selector: ([policy]) => policy,
    });
    fc.assert(
      fc.property(members, (written) => {
        const parsed = parseRateLimitField(write(written));
        expect([...parsed]).toEqual(written.map(([policy, a, b]) => [policy, { [params[0]]: a, [params[1]]: b }]));
      }),
    );
  });

  it("adds a request's cost as a parameter of our own only when it counts more than one unit, still a valid structured field", () => {
    const text = formatRateLimitPolicy([
      { policy: 'client', limit: 600, windowSeconds: 60, cost: 15 },
      { policy: 'company', limit: 1800, windowSeconds: 60, cost: 15 },
      { policy: 'chat_content', limit: 300, windowSeconds: 60, cost: 1 },
    ]);
    expect(text).toBe('"client";q=600;w=60;cost=15, "company";q=1800;w=60;cost=15, "chat_content";q=300;w=60');
    expect(parseRateLimitField(text).get('company')).toEqual({ q: 1800, w: 60, cost: 15 });
  });
});
