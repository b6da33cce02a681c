import { ApiError } from '../src/index.js';
import { CONTEXT, T0, contextAnswer, deferred, envelope, harness, json, rejection, tokenAnswer, until } from './fakes';

describe('the access token', () => {
  it('is requested by POST /oauth/token with HTTP Basic (id and secret URL-encoded) and grant_type=client_credentials', async () => {
    const { api, server } = harness({ clientId: 'client:1', clientSecret: 'p@ss word/+' });
    server.answers.push(contextAnswer());

    await expect(api.context()).resolves.toEqual(CONTEXT);

    expect(server.sent.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /oauth/token', 'GET /v1/context']);
    const [token] = server.tokenRequests;
    const authorization = token!.headers.get('authorization')!;
    expect(authorization).toBe(`Basic ${Buffer.from('client%3A1:p%40ss%20word%2F%2B').toString('base64')}`);
    expect(token!.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(token!.body!))).toEqual({ grant_type: 'client_credentials' });
    expect(server.bearers).toEqual(['Bearer tok_1']);
  });

  it('asks for the scopes given, space-separated', async () => {
    const { api, server } = harness({ scopes: ['meetings.read', 'transcriptions.read'] });
    server.answers.push(contextAnswer());

    await api.context();

    expect(Object.fromEntries(new URLSearchParams(server.tokenRequests[0]!.body!))).toEqual({
      grant_type: 'client_credentials',
      scope: 'meetings.read transcriptions.read',
    });
  });

  it('is cached and reused by later calls', async () => {
    const { api, server, clock } = harness();
    server.answers.push(contextAnswer(), contextAnswer(), contextAnswer());

    await api.context();
    clock.t += 60_000;
    await api.context();
    await api.context();

    expect(server.tokenRequests).toHaveLength(1);
    expect(api.transport.tokenRequests).toBe(1);
    expect(server.bearers).toEqual(['Bearer tok_1', 'Bearer tok_1', 'Bearer tok_1']);
    expect(api.transport.requests).toBe(3);
  });

  it('reports the scopes the token endpoint granted', async () => {
    const { api, server } = harness();
    server.tokens.push(tokenAnswer('tok_s', 3600, 'meetings.read chat.read'));

    await expect(api.transport.scopes()).resolves.toEqual(['meetings.read', 'chat.read']);
    expect(server.apiRequests).toHaveLength(0);
  });

  // The token is renewed at: sent time + expires_in − min(renewBeforeSeconds (60), lifetime / 2).
  it.each([
    { expiresIn: 3600, renewBeforeSeconds: undefined, renewAfter: 3_540_000 },
    { expiresIn: 3600, renewBeforeSeconds: 300, renewAfter: 3_300_000 },
    { expiresIn: 100, renewBeforeSeconds: undefined, renewAfter: 50_000 }, // 60 s is more than half of 100 s
    { expiresIn: 100, renewBeforeSeconds: 10, renewAfter: 90_000 },
  ])(
    'lasting $expiresIn s with renewBeforeSeconds $renewBeforeSeconds is renewed exactly $renewAfter ms after it was requested',
    async ({ expiresIn, renewBeforeSeconds, renewAfter }) => {
      const { api, server, clock } = harness(renewBeforeSeconds === undefined ? {} : { renewBeforeSeconds });
      // The token endpoint takes 2 s to answer: the lifetime counts from when the request was sent.
      server.tokens.push(
        () => {
          clock.t += 2_000;
          return tokenAnswer('tok_A', expiresIn);
        },
        tokenAnswer('tok_B', expiresIn),
      );
      server.answers.push(contextAnswer(), contextAnswer(), contextAnswer());

      await api.context();
      clock.t = T0 + renewAfter - 1;
      await api.context();
      expect(server.tokenRequests).toHaveLength(1);

      clock.t = T0 + renewAfter;
      await api.context();
      expect(server.tokenRequests).toHaveLength(2);
      expect(server.bearers).toEqual(['Bearer tok_A', 'Bearer tok_A', 'Bearer tok_B']);
    },
  );
});

describe('single flight', () => {
  it('10 concurrent calls without a token make exactly one token request', async () => {
    const { api, server } = harness();
    const gate = deferred<void>();
    server.tokens.push(async () => {
      await gate.promise;
      return tokenAnswer('tok_1');
    });
    for (let i = 0; i < 10; i++) server.answers.push(contextAnswer());

    const calls = Array.from({ length: 10 }, () => api.context());
    await until(() => server.tokenRequests.length === 1);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve)); // every call reaches the token
    expect(server.apiRequests).toHaveLength(0);
    gate.resolve();

    await expect(Promise.all(calls)).resolves.toEqual(Array(10).fill(CONTEXT));
    expect(server.tokenRequests).toHaveLength(1);
    expect(api.transport.tokenRequests).toBe(1);
    expect(server.bearers).toEqual(Array(10).fill('Bearer tok_1'));
  });

  it('a failing token request rejects every waiter, and the next call requests a token again', async () => {
    const { api, server } = harness();
    const gate = deferred<void>();
    server.tokens.push(async () => {
      await gate.promise;
      return json(400, { error: 'invalid_scope', error_description: 'scope not granted' });
    });

    const calls = Array.from({ length: 10 }, () => rejection(api.context()));
    await until(() => server.tokenRequests.length === 1);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    gate.resolve();
    const errors = await Promise.all(calls);

    expect(errors).toHaveLength(10);
    for (const error of errors) {
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, code: 'invalid_scope', detail: 'scope not granted' });
    }
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.apiRequests).toHaveLength(0);

    server.answers.push(contextAnswer());
    await expect(api.context()).resolves.toEqual(CONTEXT);
    expect(server.tokenRequests).toHaveLength(2);
    expect(server.bearers).toEqual(['Bearer tok_1']);
  });

  it('a caller that aborts while the token is being issued does not fail the others waiting for it', async () => {
    const { api, server } = harness();
    const gate = deferred<void>();
    server.tokens.push(async () => {
      await gate.promise;
      return tokenAnswer('tok_1');
    });
    server.answers.push(contextAnswer());
    const first = new AbortController();
    const reason = new Error('the first caller gave up');

    const aborted = api.context({ signal: first.signal });
    const waiting = api.context();
    await until(() => server.tokenRequests.length === 1);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    first.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    gate.resolve();

    await expect(waiting).resolves.toEqual(CONTEXT);
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.bearers).toEqual(['Bearer tok_1']);
  });

  it('a caller whose timeout passes while the token is being issued gets TIMEOUT; the others get their answer', async () => {
    const { api, server } = harness();
    const gate = deferred<void>();
    server.tokens.push(async () => {
      await gate.promise;
      return tokenAnswer('tok_1');
    });
    server.answers.push(contextAnswer());

    const hurried = api.context({ timeout: 20 });
    const waiting = api.context();
    await expect(hurried).rejects.toMatchObject({ status: 0, code: 'TIMEOUT' });
    gate.resolve();

    await expect(waiting).resolves.toEqual(CONTEXT);
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.bearers).toEqual(['Bearer tok_1']);
  });
});

describe('401', () => {
  it('INVALID_ACCESS_TOKEN drops the token, a new one is issued and the request retried once with it', async () => {
    const { api, server, clock } = harness();
    server.answers.push(envelope(401, 'INVALID_ACCESS_TOKEN', { type: 'AuthenticationError' }), contextAnswer());

    await expect(api.context()).resolves.toEqual(CONTEXT);

    expect(server.sent.map((s) => s.path)).toEqual(['/oauth/token', '/v1/context', '/oauth/token', '/v1/context']);
    expect(server.bearers).toEqual(['Bearer tok_1', 'Bearer tok_2']);
    expect(clock.sleeps).toEqual([]);

    // The new token is the one kept.
    server.answers.push(contextAnswer());
    await api.context();
    expect(server.bearers).toEqual(['Bearer tok_1', 'Bearer tok_2', 'Bearer tok_2']);
    expect(server.tokenRequests).toHaveLength(2);
  });

  it('a second INVALID_ACCESS_TOKEN is thrown as ApiError 401', async () => {
    const { api, server, clock } = harness();
    server.answers.push(
      envelope(401, 'INVALID_ACCESS_TOKEN', { type: 'AuthenticationError', request_id: 'req_a' }),
      envelope(401, 'INVALID_ACCESS_TOKEN', { type: 'AuthenticationError', request_id: 'req_b' }),
      contextAnswer(),
    );

    const error = await rejection(api.context());

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: 'INVALID_ACCESS_TOKEN', type: 'AuthenticationError', requestId: 'req_b' });
    expect(server.bearers).toEqual(['Bearer tok_1', 'Bearer tok_2']);
    expect(server.tokenRequests).toHaveLength(2);
    expect(clock.sleeps).toEqual([]);
  });

  it('MISSING_ACCESS_TOKEN is not retried', async () => {
    const { api, server } = harness();
    server.answers.push(envelope(401, 'MISSING_ACCESS_TOKEN', { type: 'AuthenticationError' }), contextAnswer());

    const error = await rejection(api.context());

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: 'MISSING_ACCESS_TOKEN' });
    expect(server.apiRequests).toHaveLength(1);
    expect(server.tokenRequests).toHaveLength(1);
  });
});

describe('the token endpoint', () => {
  it.each([
    { status: 401, error: 'invalid_client', description: 'Client authentication failed' },
    { status: 400, error: 'invalid_scope', description: 'chat.read is not granted to this client' },
  ])(
    'answering $status in the OAuth shape ($error) throws ApiError with that code, not retried',
    async ({ status, error, description }) => {
      const { api, server, clock } = harness();
      server.tokens.push(json(status, { error, error_description: description }, { 'X-Request-Id': 'req_tok' }));

      const thrown = await rejection(api.context());

      expect(thrown).toBeInstanceOf(ApiError);
      expect(thrown).toMatchObject({ status, code: error, detail: description, requestId: 'req_tok', type: null });
      expect(server.tokenRequests).toHaveLength(1);
      expect(server.apiRequests).toHaveLength(0);
      expect(clock.sleeps).toEqual([]);
    },
  );

  it('answering 200 without access_token throws INVALID_RESPONSE', async () => {
    const { api, server } = harness();
    server.tokens.push(json(200, { token_type: 'Bearer' }));

    await expect(api.context()).rejects.toMatchObject({ status: 200, code: 'INVALID_RESPONSE' });
    expect(server.apiRequests).toHaveLength(0);
  });
});
