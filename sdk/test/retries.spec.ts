import { ApiError } from '../src/index.js';
import { CONTEXT, T0, contextAnswer, envelope, harness, json, rejection } from './fakes';

describe('429', () => {
  it('with Retry-After: 3 waits exactly 3000 ms, then retries', async () => {
    const { api, server, clock } = harness();
    server.answers.push(envelope(429, 'RATE_LIMIT_EXCEEDED', { type: 'RateLimitError' }, { 'Retry-After': '3' }), contextAnswer());

    await expect(api.context()).resolves.toEqual(CONTEXT);

    expect(clock.sleeps).toEqual([3000]);
    expect(server.apiRequests).toHaveLength(2);
    expect(server.bearers).toEqual(['Bearer tok_1', 'Bearer tok_1']);
    expect(api.transport.requests).toBe(2);
  });

  it('with an HTTP-date Retry-After waits until that instant of the clock', async () => {
    const { api, server, clock } = harness();
    clock.t = Date.parse('Tue, 14 Nov 2023 22:13:20 GMT');
    server.answers.push(envelope(429, 'RATE_LIMIT_EXCEEDED', {}, { 'Retry-After': 'Tue, 14 Nov 2023 22:13:27 GMT' }), contextAnswer());

    await api.context();

    expect(clock.sleeps).toEqual([7000]);
    expect(server.apiRequests).toHaveLength(2);
  });

  it('whose wait would end past the call’s deadline throws RATE_LIMIT_EXCEEDED at once, retryAfter set', async () => {
    const { api, server, clock } = harness();
    server.answers.push(
      envelope(429, 'RATE_LIMIT_EXCEEDED', { type: 'RateLimitError', request_id: 'req_429' }, { 'Retry-After': '3' }),
      contextAnswer(),
    );

    const error = await rejection(api.context({ timeout: 2999 }));

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: 3, requestId: 'req_429', type: 'RateLimitError' });
    expect(clock.sleeps).toEqual([]);
    expect(server.apiRequests).toHaveLength(1);
  });

  it('whose wait would end exactly at the deadline is not started either', async () => {
    const { api, server, clock } = harness();
    server.answers.push(envelope(429, 'RATE_LIMIT_EXCEEDED', {}, { 'Retry-After': '3' }), contextAnswer());

    await expect(api.context({ timeout: 3000 })).rejects.toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: 3 });
    expect(clock.sleeps).toEqual([]);
    expect(server.apiRequests).toHaveLength(1);
  });

  it('whose wait ends before the deadline (client timeout) is waited', async () => {
    const { api, server, clock } = harness({ timeout: 3001 });
    server.answers.push(envelope(429, 'RATE_LIMIT_EXCEEDED', {}, { 'Retry-After': '3' }), contextAnswer());

    await expect(api.context()).resolves.toEqual(CONTEXT);

    expect(clock.sleeps).toEqual([3000]);
  });

  it('counts against maxRetries: the last 429 is thrown after them', async () => {
    const { api, server, clock } = harness({ retry: { maxRetries: 2 } });
    for (let i = 0; i < 4; i++)
      server.answers.push(envelope(429, 'RATE_LIMIT_EXCEEDED', { request_id: `req_${i}` }, { 'Retry-After': String(i + 1) }));

    const error = await rejection(api.context());

    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: 3, requestId: 'req_2' });
    expect(clock.sleeps).toEqual([1000, 2000]);
    expect(server.apiRequests).toHaveLength(3);
  });
});

describe('5xx and network errors back off exponentially with full jitter', () => {
  it.each([
    { status: 503, code: 'SERVICE_UNAVAILABLE', answer: () => envelope(503, 'SERVICE_UNAVAILABLE', { type: 'ServiceUnavailableError' }) },
    { status: 500, code: 'INTERNAL_ERROR', answer: () => envelope(500, 'INTERNAL_ERROR', { type: 'InternalError' }) },
    { status: 502, code: 'HTTP_502', answer: () => new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' }) },
    { status: 504, code: 'HTTP_504', answer: () => new Response(null, { status: 504, statusText: 'Gateway Timeout' }) },
  ])('$status: waits 500, 1000, 2000, 4000, 8000 ms, then throws the last ($code)', async ({ status, code, answer }) => {
    const { api, server, clock } = harness({ retry: { maxRetries: 5, baseDelay: 1000, maxDelay: 30_000 } });
    for (let i = 0; i < 7; i++) server.answers.push(answer());

    const error = await rejection(api.context());

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status, code });
    expect(clock.sleeps).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(server.apiRequests).toHaveLength(6);
    expect(clock.t).toBe(T0 + 15_500);
  });

  it('the ceiling doubles up to maxDelay and stays there', async () => {
    const { api, server, clock } = harness({ retry: { maxRetries: 8, baseDelay: 1000, maxDelay: 30_000 } });
    for (let i = 0; i < 9; i++) server.answers.push(envelope(503, 'SERVICE_UNAVAILABLE'));

    await expect(api.context()).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });

    expect(clock.sleeps).toEqual([500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
    expect(server.apiRequests).toHaveLength(9);
  });

  it('a success after retries is returned', async () => {
    const { api, server, clock } = harness();
    server.answers.push(envelope(503, 'SERVICE_UNAVAILABLE'), envelope(500, 'INTERNAL_ERROR'), contextAnswer());

    await expect(api.context()).resolves.toEqual(CONTEXT);

    expect(clock.sleeps).toEqual([500, 1000]);
    expect(server.apiRequests).toHaveLength(3);
  });

  it('a 503 with Retry-After waits that instead of the backoff', async () => {
    const { api, server, clock } = harness();
    server.answers.push(envelope(503, 'SERVICE_UNAVAILABLE', {}, { 'Retry-After': '10' }), contextAnswer());

    await api.context();

    expect(clock.sleeps).toEqual([10_000]);
  });

  it('network errors (fetch throwing) are retried the same way, then thrown as CONNECTION_ERROR status 0', async () => {
    const { api, server, clock } = harness({ retry: { maxRetries: 3 } });
    const failures = [
      new TypeError('fetch failed'),
      new TypeError('fetch failed'),
      new TypeError('fetch failed'),
      new TypeError('socket hang up'),
    ];
    server.answers.push(...failures);

    const error = await rejection(api.context());

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, code: 'CONNECTION_ERROR', detail: 'GET /v1/context: socket hang up', requestId: null });
    expect((error as ApiError).cause).toBe(failures[3]);
    expect(clock.sleeps).toEqual([500, 1000, 2000]);
    expect(server.apiRequests).toHaveLength(4);
  });

  it('a network error then a success resolves', async () => {
    const { api, server, clock } = harness();
    server.answers.push(new TypeError('fetch failed'), contextAnswer());

    await expect(api.context()).resolves.toEqual(CONTEXT);
    expect(clock.sleeps).toEqual([500]);
  });

  it('a token request failing on the network is retried with the same backoff', async () => {
    const { api, server, clock } = harness();
    server.tokens.push(new TypeError('fetch failed'), json(503, { error: { code: 'SERVICE_UNAVAILABLE', detail: 'x' } }));
    server.answers.push(contextAnswer());

    await expect(api.context()).resolves.toEqual(CONTEXT);
    expect(clock.sleeps).toEqual([500, 1000]);
    expect(server.tokenRequests).toHaveLength(3);
  });

  it('jitter stays below each ceiling: with random() = 0.999 every delay is 0.999 of it', async () => {
    const { api, server, clock } = harness({ retry: { maxRetries: 7, baseDelay: 1000, maxDelay: 30_000 } });
    clock.randomValue = 0.999;
    for (let i = 0; i < 8; i++) server.answers.push(envelope(502, 'HTTP_502'));

    await expect(api.context()).rejects.toMatchObject({ status: 502 });

    const ceilings = [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000];
    expect(clock.sleeps).toHaveLength(ceilings.length);
    clock.sleeps.forEach((delay, i) => {
      expect(delay).toBeLessThan(ceilings[i]!);
      expect(delay).toBeCloseTo(0.999 * ceilings[i]!, 6);
    });
  });

  it('with random() = 0 the retries do not wait at all', async () => {
    const { api, server, clock } = harness({ retry: { maxRetries: 2 } });
    clock.randomValue = 0;
    server.answers.push(envelope(503, 'SERVICE_UNAVAILABLE'), envelope(503, 'SERVICE_UNAVAILABLE'), contextAnswer());

    await api.context();
    expect(clock.sleeps).toEqual([0, 0]);
  });
});

describe('no retry', () => {
  it.each([
    { status: 400, code: 'INVALID_LIMIT', type: 'InvalidRequestError' },
    { status: 403, code: 'INSUFFICIENT_SCOPE', type: 'ForbiddenError' },
    { status: 404, code: 'RESOURCE_NOT_FOUND', type: 'NotFoundError' },
    { status: 405, code: 'METHOD_NOT_ALLOWED', type: 'InvalidRequestError' },
  ])('on $status: one request, ApiError with status, code, detail, requestId and type', async ({ status, code, type }) => {
    const { api, server, clock } = harness();
    server.answers.push(
      envelope(status, code, { type, detail: `why ${status}`, request_id: `req_${status}` }, { 'X-Request-Id': 'req_header' }),
      contextAnswer(),
    );

    const error = await rejection(api.context());

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      name: 'ApiError',
      status,
      code,
      detail: `why ${status}`,
      requestId: `req_${status}`,
      type,
      retryAfter: null,
    });
    expect((error as ApiError).message).toBe(`${status} ${code}: why ${status}`);
    expect(server.apiRequests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('an error without the envelope is HTTP_<status> with the X-Request-Id header', async () => {
    const { api, server } = harness();
    server.answers.push(new Response('nope', { status: 404, statusText: 'Not Found', headers: { 'X-Request-Id': 'req_h' } }));

    await expect(api.context()).rejects.toMatchObject({
      status: 404,
      code: 'HTTP_404',
      detail: 'Not Found',
      requestId: 'req_h',
      type: null,
    });
    expect(server.apiRequests).toHaveLength(1);
  });
});

describe('the rate-limit state', () => {
  it('is null before any answer, then reports every policy of the last answer', async () => {
    const { api, server, clock } = harness();
    expect(api.rateLimit).toBeNull();
    clock.t = T0 + 5;
    server.answers.push(
      contextAnswer({
        'RateLimit-Policy': '"client";q=600;w=60, "company";q=1800;w=60',
        RateLimit: '"client";r=599;t=60, "company";r=1790;t=42',
      }),
    );

    await api.context();

    expect(api.rateLimit).toEqual({
      observedAt: new Date(T0 + 5),
      policies: [
        { policy: 'client', quota: 600, window: 60, remaining: 599, reset: 60 },
        { policy: 'company', quota: 1800, window: 60, remaining: 1790, reset: 42 },
      ],
    });
  });

  it('is updated by a refused answer and kept by an answer without RateLimit', async () => {
    const { api, server } = harness();
    server.answers.push(
      envelope(
        429,
        'RATE_LIMIT_EXCEEDED',
        {},
        { 'Retry-After': '1', RateLimit: '"company";r=0;t=1', 'RateLimit-Policy': '"company";q=1800;w=60' },
      ),
      contextAnswer(),
    );

    await api.context();

    expect(api.rateLimit?.policies).toEqual([{ policy: 'company', quota: 1800, window: 60, remaining: 0, reset: 1 }]);
  });

  it('a policy not announced in RateLimit-Policy has null quota and window', async () => {
    const { api, server } = harness();
    server.answers.push(contextAnswer({ RateLimit: '"export";r=3;t=7' }));

    await api.context();

    expect(api.rateLimit?.policies).toEqual([{ policy: 'export', quota: null, window: null, remaining: 3, reset: 7 }]);
  });
});
