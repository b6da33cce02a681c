import type { Request } from 'express';
import { ClsService } from 'nestjs-cls';
import { ApiError } from '../common/errors/api-error';
import { loadConfig } from '../config/app-config';
import { MemoryRateLimitStore } from './memory-rate-limit-store';
import { claimedClientId } from '../auth/token-request';
import { addressPartition, RateLimiter, RateLimitOptions } from './rate-limiter';
import { RateLimitStore } from './rate-limit-store';

describe('addressPartition', () => {
  it('counts IPv4 as is and an IPv4-mapped IPv6 address as its IPv4', () => {
    expect(addressPartition('203.0.113.7')).toBe('203.0.113.7');
    expect(addressPartition('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts IPv6 by its /64', () => {
    expect(addressPartition('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressPartition('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressPartition('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('puts an unreadable address in one shared partition', () => {
    expect(addressPartition(undefined)).toBe('unknown');
    expect(addressPartition('not-an-ip')).toBe('unknown');
  });
});

describe('RateLimiter', () => {
  const config = loadConfig({ NODE_ENV: 'test', RATE_LIMIT_TOKEN: '2/60', RATE_LIMIT_CLIENT: '3/30' });
  const fakeCls = () => {
    const values = new Map<string, unknown>();
    return { get: (key: string) => values.get(key), set: (key: string, value: unknown) => values.set(key, value) } as unknown as ClsService;
  };
  const tokenRequest = (ip: string, clientId: string) => ({ ip, body: { client_id: clientId }, headers: {} }) as unknown as Request;
  const clientId = 'cli_0123456789abcdefghijkl';
  const options: RateLimitOptions = { tokenClientOf: (req) => claimedClientId(req.body, req.headers.authorization) };

  it('announces the configured policies in header order', () => {
    const limiter = new RateLimiter(new MemoryRateLimitStore(), fakeCls(), config, options);
    expect(limiter.policyHeader(['company', 'client'])).toBe('"client";q=3;w=30, "company";q=1800;w=60');
  });

  it('charges the token policy per address and per well-formed client id at that address, and reports the tighter partition', async () => {
    const limiter = new RateLimiter(new MemoryRateLimitStore(), fakeCls(), config, options);
    const first = await limiter.consume(limiter.demands('token', tokenRequest('198.51.100.1', clientId), 2, 60_000));
    expect(first.stateHeader).toBe('"token";r=1;t=60');
    const elsewhere = await limiter.consume(limiter.demands('token', tokenRequest('198.51.100.2', clientId), 2, 60_000));
    expect(elsewhere.stateHeader).toBe('"token";r=1;t=60'); // another address: its own budget, for the same client id too
    const again = await limiter.consume(limiter.demands('token', tokenRequest('198.51.100.1', 'cli_other0123456789abcdef'), 2, 60_000));
    expect(again.stateHeader).toBe('"token";r=0;t=60'); // the address has spent both, whatever client it names
    const refused = await limiter.consume(limiter.demands('token', tokenRequest('198.51.100.1', clientId), 2, 60_000));
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
    expect(limiter.demands('token', tokenRequest('198.51.100.3', clientId), 2, 60_000).map((d) => d.key)).toEqual([
      'rl:token:address:198.51.100.3',
      `rl:token:client:${clientId}@198.51.100.3`,
    ]);
    expect(limiter.demands('token', tokenRequest('198.51.100.3', 'garbage'.repeat(500)), 2, 60_000).map((d) => d.key)).toEqual([
      'rl:token:address:198.51.100.3',
    ]);
  });

  it('answers 503 SERVICE_UNAVAILABLE when the store fails', async () => {
    const failing = { consume: () => Promise.reject(new Error('ECONNREFUSED')) } as unknown as RateLimitStore;
    const cls = fakeCls();
    cls.set('principal', { clientId, companyPublicId: 'cmp_x' });
    const limiter = new RateLimiter(failing, cls, config, options);
    const error = await limiter.consume([{ policy: 'client', key: 'k', limit: 1, windowMs: 1000 }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('SERVICE_UNAVAILABLE');
  });
});
