import { Controller } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ClsService } from 'nestjs-cls';
import { caught, httpContext } from '../../test/support/execution-context';
import { ApiError } from '../common/errors/api-error';
import { Principal } from '../common/http/request-context';
import { loadConfig } from '../config/app-config';
import { FailedAuthLimit, REFUSAL_DELAY_MS } from '../rate-limit/failed-auth-limit';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit-store';
import { AuthErrors } from './auth-errors';
import { Public } from './auth.decorators';
import { BearerAuthGuard } from './bearer-auth.guard';
import { BearerStrategy } from './bearer.strategy';
import { CredentialsService } from './credentials.service';

@Controller()
class Routes {
  meetings(): void {}

  @Public()
  health(): void {}
}

@Public()
@Controller()
class PublicRoutes {
  docs(): void {}
}

const PRINCIPAL: Principal = {
  companyId: '42',
  companyPublicId: 'cmp_0123456789abcdefghijkl',
  companyName: 'Empresa',
  clientId: 'cli_0123456789abcdefghijkl',
  clientName: 'Integração',
  scopes: ['meetings.read'],
};
const CHALLENGE = 'Bearer realm="conversation-read-api"';
const INVALID_CHALLENGE = `${CHALLENGE}, error="invalid_token", error_description="The access token is invalid; request a new one."`;

/**
 * The guard with its real passport strategy (registered under its own name, as in the app), whose
 * collaborators are fakes: the credential check answers from `verdicts`, the CLS is a map.
 */
describe('BearerAuthGuard', () => {
  let strategy: BearerStrategy;
  let guard: BearerAuthGuard;
  let verdicts: Map<string, Principal | ApiError>;
  let checked: Array<[token: string, address: string | undefined]>;
  let cls: Map<string, unknown>;

  beforeEach(() => {
    verdicts = new Map<string, Principal | ApiError>([
      ['good-token', PRINCIPAL],
      ['stale-token', AuthErrors.invalidToken('The access token is no longer valid; request a new one.')],
      ['disabled-token', AuthErrors.apiAccessDisabled()],
    ]);
    checked = [];
    cls = new Map();
    const credentials = {
      authenticateToken: async (token: string, address: string | undefined) => {
        checked.push([token, address]);
        const verdict = verdicts.get(token) ?? AuthErrors.invalidToken();
        if (verdict instanceof ApiError) throw verdict;
        return verdict;
      },
    } as unknown as CredentialsService;
    const fakeCls = {
      set: (key: string, value: unknown) => cls.set(key, value),
      get: (key: string) => cls.get(key),
    } as unknown as ClsService;
    strategy = new BearerStrategy(credentials, fakeCls);
    guard = new BearerAuthGuard(
      new Reflector(),
      strategy,
      new FailedAuthLimit(new MemoryRateLimitStore(), loadConfig({ NODE_ENV: 'test', RATE_LIMIT_UNAUTHENTICATED: '3/60' })),
      fakeCls,
    );
  });
  afterEach(() => strategy.onApplicationShutdown());

  const run = (authorization: string | undefined, extra: Record<string, unknown> = {}) => {
    const { context, req } = httpContext(Routes, 'meetings', {
      headers: authorization === undefined ? {} : { authorization },
      ip: '203.0.113.9',
      ...extra,
    });
    return { outcome: Promise.resolve(guard.canActivate(context)), req };
  };

  const expectApiError = (error: unknown, status: number, code: string, challenge?: string) => {
    expect(error).toBeInstanceOf(ApiError);
    const e = error as ApiError;
    expect({ status: e.status, code: e.code }).toEqual({ status, code });
    expect(e.headers['WWW-Authenticate']).toBe(challenge);
  };

  describe('allows', () => {
    it('a request with a valid bearer token: the principal is on the request and in the CLS, the token checked with the caller address', async () => {
      const { outcome, req } = run('Bearer good-token');
      await expect(outcome).resolves.toBe(true);
      expect((req as unknown as { user: unknown }).user).toEqual(PRINCIPAL);
      expect(cls.get('principal')).toEqual(PRINCIPAL);
      expect(checked).toEqual([['good-token', '203.0.113.9']]);
    });

    it('the scheme in any case', async () => {
      await expect(run('bearer good-token').outcome).resolves.toBe(true);
      await expect(run('BEARER good-token').outcome).resolves.toBe(true);
    });

    it.each([
      ['a @Public() handler', Routes, 'health'],
      ['a handler of a @Public() controller', PublicRoutes, 'docs'],
    ] as const)('%s without a token, and checks no token at all', async (_name, controller, handler) => {
      for (const authorization of [undefined, 'Bearer stale-token', 'Basic abc']) {
        const { context } = httpContext(controller, handler, {
          headers: authorization ? { authorization } : {},
        });
        await expect(Promise.resolve(guard.canActivate(context))).resolves.toBe(true);
      }
      expect(checked).toEqual([]);
      expect(cls.has('principal')).toBe(false);
    });
  });

  describe('refuses', () => {
    it('the failures of an address past RATE_LIMIT_UNAUTHENTICATED: 429 RATE_LIMIT_EXCEEDED with Retry-After; a valid token from it is served', async () => {
      for (let i = 0; i < 3; i++) expectApiError(await caught(() => run('Bearer unknown-token').outcome), 401, 'INVALID_ACCESS_TOKEN', INVALID_CHALLENGE);
      // A refusal is held REFUSAL_DELAY_MS before it is answered (timers faked: no real second waited).
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const refusal = async (authorization: string | undefined) => {
        let settled = false;
        const pending = caught(() => run(authorization).outcome).finally(() => (settled = true));
        await jest.advanceTimersByTimeAsync(REFUSAL_DELAY_MS - 1);
        expect(settled).toBe(false);
        await jest.advanceTimersByTimeAsync(1);
        return (await pending) as ApiError;
      };
      try {
        for (const authorization of ['Bearer unknown-token', undefined]) {
          const error = await refusal(authorization);
          expect({ status: error.status, code: error.code }).toEqual({ status: 429, code: 'RATE_LIMIT_EXCEEDED' });
          expect(Number(error.headers['Retry-After'])).toBeGreaterThan(0);
          expect(error.headers['RateLimit-Policy']).toBe('"unauthenticated";q=3;w=60');
        }
        // A client sharing the address (a NAT) is not locked out by the flood; another address is served; a success spends nothing.
        await expect(run('Bearer good-token').outcome).resolves.toBe(true);
        await expect(run('Bearer good-token', { ip: '198.51.100.7' }).outcome).resolves.toBe(true);
        expectApiError(await refusal('Bearer unknown-token'), 429, 'RATE_LIMIT_EXCEEDED');
      } finally {
        jest.useRealTimers();
      }
    });

    it('no Authorization header: 401 MISSING_ACCESS_TOKEN with a bare Bearer challenge', async () => {
      expectApiError(await caught(() => run(undefined).outcome), 401, 'MISSING_ACCESS_TOKEN', CHALLENGE);
      expect(checked).toEqual([]);
    });

    it('another scheme: 401 MISSING_ACCESS_TOKEN', async () => {
      expectApiError(await caught(() => run('Basic abc').outcome), 401, 'MISSING_ACCESS_TOKEN', CHALLENGE);
      expect(checked).toEqual([]);
    });

    it('a token in the query string or the body, not the header: 401 MISSING_ACCESS_TOKEN', async () => {
      const inQuery = run(undefined, { query: { access_token: 'good-token' } }).outcome;
      expectApiError(await caught(() => inQuery), 401, 'MISSING_ACCESS_TOKEN', CHALLENGE);
      const inBody = run(undefined, { body: { access_token: 'good-token' } }).outcome;
      expectApiError(await caught(() => inBody), 401, 'MISSING_ACCESS_TOKEN', CHALLENGE);
      expect(checked).toEqual([]);
    });

    it.each(['Bearer', 'Bearer ', 'Bearer a b', 'bearer  good-token'])(
      'a malformed Bearer header (%j): 401 INVALID_ACCESS_TOKEN with an invalid_token challenge',
      async (authorization) => {
        const error = await caught(() => run(authorization).outcome);
        expectApiError(error, 401, 'INVALID_ACCESS_TOKEN', INVALID_CHALLENGE);
        expect(checked).toEqual([]);
      },
    );

    it('a token the credential check rejects: its 401 INVALID_ACCESS_TOKEN as it is, and no principal', async () => {
      const { outcome, req } = run('Bearer stale-token');
      const error = await caught(() => outcome);
      expectApiError(
        error,
        401,
        'INVALID_ACCESS_TOKEN',
        'Bearer realm="conversation-read-api", error="invalid_token", error_description="The access token is no longer valid; request a new one."',
      );
      expect(checked).toEqual([['stale-token', '203.0.113.9']]);
      expect(cls.has('principal')).toBe(false);
      expect((req as unknown as { user?: unknown }).user).toBeUndefined();
    });

    it('a company whose API access is off: 403 API_ACCESS_DISABLED, without a challenge', async () => {
      expectApiError(await caught(() => run('Bearer disabled-token').outcome), 403, 'API_ACCESS_DISABLED', undefined);
    });
  });
});
