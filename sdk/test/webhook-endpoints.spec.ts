import { ApiError } from '../src/index.js';
import { envelope, harness, json, rejection } from './fakes';

/** `api.webhookEndpoints` and `api.auditEvents` against the fake fetch: the requests sent, the answers read, what is retried. */

const ENDPOINT = {
  object: 'webhook_endpoint',
  id: 'whe_1',
  url: 'https://hooks.example.com/in',
  types: ['meeting', 'call'],
  description: null,
  enabled: true,
  state: 'enabled',
  failing_since: null,
  created_at: '2026-11-23T14:05:09.123456Z',
  updated_at: '2026-11-23T14:05:09.123456Z',
};
const CREATED = { ...ENDPOINT, secret: 'whsec_c2VjcmV0' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const one = (status: number, data: unknown) => json(status, { data, request_id: 'req_1' });
const page = (ids: string[], next: string | null) =>
  json(200, { data: ids.map((id) => ({ id })), pagination: { limit: 2, has_more: next !== null, next_cursor: next }, request_id: 'req_p' });
const query = (url: URL): Record<string, string> => Object.fromEntries(url.searchParams);
const refused = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
const reset = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });

describe('webhookEndpoints.create', () => {
  it('POSTs the JSON body with a random Idempotency-Key and answers the endpoint with its secret', async () => {
    const { api, server } = harness();
    server.answers.push(one(201, CREATED));

    const created = await api.webhookEndpoints.create({
      url: 'https://hooks.example.com/in',
      types: ['meeting', 'call'],
      description: 'CRM',
    });

    expect(created).toEqual(CREATED);
    const [sent] = server.apiRequests;
    expect(`${sent!.method} ${sent!.path}`).toBe('POST /v1/webhook-endpoints');
    expect(sent!.headers.get('content-type')).toBe('application/json');
    expect(sent!.headers.get('authorization')).toBe('Bearer tok_1');
    expect(JSON.parse(sent!.body!)).toEqual({ url: 'https://hooks.example.com/in', types: ['meeting', 'call'], description: 'CRM' });
    expect(sent!.headers.get('idempotency-key')).toMatch(UUID);
  });

  it('sends the same key and body again on its own retry after a network error: one endpoint', async () => {
    const { api, server, clock } = harness();
    server.answers.push(reset(), one(201, CREATED));

    await expect(api.webhookEndpoints.create({ url: 'https://hooks.example.com/in' })).resolves.toEqual(CREATED);

    expect(clock.sleeps).toEqual([500]);
    const [first, second] = server.apiRequests;
    expect(server.apiRequests).toHaveLength(2);
    expect(second!.headers.get('idempotency-key')).toBe(first!.headers.get('idempotency-key'));
    expect(second!.body).toBe(first!.body);
    expect(second!.headers.get('content-type')).toBe('application/json');
  });

  it('sends the same key again after a 503 and a 429', async () => {
    const { api, server } = harness();
    server.answers.push(
      envelope(503, 'SERVICE_UNAVAILABLE'),
      envelope(429, 'RATE_LIMIT_EXCEEDED', {}, { 'Retry-After': '1' }),
      one(201, CREATED),
    );

    await api.webhookEndpoints.create({ url: 'https://hooks.example.com/in' });

    const keys = server.apiRequests.map((s) => s.headers.get('idempotency-key'));
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it('makes a new key for each call, and sends the caller’s own as it is', async () => {
    const { api, server } = harness();
    server.answers.push(one(201, CREATED), one(201, CREATED), one(201, CREATED));

    await api.webhookEndpoints.create({ url: 'https://a.example.com' });
    await api.webhookEndpoints.create({ url: 'https://a.example.com' });
    await api.webhookEndpoints.create({ url: 'https://a.example.com' }, { idempotencyKey: 'register https://a.example.com' });

    const keys = server.apiRequests.map((s) => s.headers.get('idempotency-key'));
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('register https://a.example.com');
  });

  it('refuses a key the service would refuse (empty, over 255 characters) before any request', async () => {
    const { api, server } = harness();
    for (const key of ['', 'k'.repeat(256)])
      await expect(api.webhookEndpoints.create({ url: 'https://a.example.com' }, { idempotencyKey: key })).rejects.toBeInstanceOf(
        TypeError,
      );
    expect(server.sent).toHaveLength(0);
  });

  it.each([
    [400, 'INVALID_WEBHOOK_URL'],
    [409, 'WEBHOOK_ENDPOINT_LIMIT'],
    [409, 'IDEMPOTENCY_KEY_REUSED'],
    [403, 'INSUFFICIENT_SCOPE'],
  ])('%i %s is an ApiError, thrown at once', async (status, code) => {
    const { api, server } = harness();
    server.answers.push(envelope(status, code, { detail: 'why', request_id: 'req_x' }));

    const error = await rejection(api.webhookEndpoints.create({ url: 'http://10.0.0.1/' }));

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status, code, detail: 'why', requestId: 'req_x' });
    expect(server.apiRequests).toHaveLength(1);
  });
});

describe('webhookEndpoints reads', () => {
  it('list pages with its limit, oldest first as the service answers', async () => {
    const { api, server } = harness();
    server.answers.push(page(['whe_1', 'whe_2'], 'cur_1'), page(['whe_3'], null));

    const all = await api.webhookEndpoints.list({ limit: 2 }).toArray();

    expect(all.map((e) => e.id)).toEqual(['whe_1', 'whe_2', 'whe_3']);
    expect(server.apiRequests.map((s) => `${s.method} ${s.path}`)).toEqual(Array(2).fill('GET /v1/webhook-endpoints'));
    expect(server.apiRequests.map((s) => query(s.url))).toEqual([{ limit: '2' }, { limit: '2', cursor: 'cur_1' }]);
  });

  it('get reads one endpoint, its id encoded in the path; a 404 is RESOURCE_NOT_FOUND', async () => {
    const { api, server } = harness();
    server.answers.push(one(200, ENDPOINT), envelope(404, 'RESOURCE_NOT_FOUND'));

    expect(await api.webhookEndpoints.get('whe_1')).toEqual(ENDPOINT);
    await expect(api.webhookEndpoints.get('whe_?/x')).rejects.toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND' });

    expect(server.apiRequests.map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /v1/webhook-endpoints/whe_1',
      'GET /v1/webhook-endpoints/whe_%3F%2Fx',
    ]);
  });

  it('deliveries pages with state and limit', async () => {
    const { api, server } = harness();
    server.answers.push(page(['whd_1', 'whd_2'], 'cur_1'), page(['whd_3'], null));

    const ids: string[] = [];
    for await (const delivery of api.webhookEndpoints.deliveries('whe_1', { state: 'failed', limit: 2 })) ids.push(delivery.id);

    expect(ids).toEqual(['whd_1', 'whd_2', 'whd_3']);
    expect(server.apiRequests.map((s) => `${s.method} ${s.path}`)).toEqual(Array(2).fill('GET /v1/webhook-endpoints/whe_1/deliveries'));
    expect(server.apiRequests.map((s) => query(s.url))).toEqual([
      { state: 'failed', limit: '2' },
      { state: 'failed', limit: '2', cursor: 'cur_1' },
    ]);
  });

  it('an empty or dot id is refused before any request', async () => {
    const { api, server } = harness();
    for (const id of ['', '.', '..']) {
      await expect(api.webhookEndpoints.get(id)).rejects.toBeInstanceOf(TypeError);
      await expect(api.webhookEndpoints.update(id, { enabled: false })).rejects.toBeInstanceOf(TypeError);
      await expect(api.webhookEndpoints.retry('whe_1', id)).rejects.toBeInstanceOf(TypeError);
    }
    expect(server.sent).toHaveLength(0);
  });
});

describe('webhookEndpoints writes', () => {
  it('update PATCHes the fields named as JSON and answers the endpoint', async () => {
    const { api, server } = harness();
    server.answers.push(one(200, { ...ENDPOINT, enabled: false, state: 'disabled' }));

    const paused = await api.webhookEndpoints.update('whe_1', { enabled: false, description: null });

    expect(paused).toMatchObject({ id: 'whe_1', enabled: false, state: 'disabled' });
    const [sent] = server.apiRequests;
    expect(`${sent!.method} ${sent!.path}`).toBe('PATCH /v1/webhook-endpoints/whe_1');
    expect(sent!.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(sent!.body!)).toEqual({ enabled: false, description: null });
    expect(sent!.headers.get('idempotency-key')).toBeNull();
  });

  it('delete sends DELETE without a body and resolves on 204; it is retried after a 503', async () => {
    const { api, server, clock } = harness();
    server.answers.push(envelope(503, 'SERVICE_UNAVAILABLE'), new Response(null, { status: 204 }));

    await expect(api.webhookEndpoints.delete('whe_1')).resolves.toBeUndefined();

    expect(clock.sleeps).toHaveLength(1);
    expect(server.apiRequests.map((s) => [s.method, s.path, s.body])).toEqual(
      Array(2).fill(['DELETE', '/v1/webhook-endpoints/whe_1', null]),
    );
  });

  it('rotateSecret POSTs without a body; 409 ROTATION_IN_PROGRESS is an ApiError', async () => {
    const { api, server } = harness();
    const rotated = { secret: 'whsec_bmV3', previous_secret_expires_at: '2026-11-24T14:05:09.123456Z' };
    server.answers.push(one(200, rotated), envelope(409, 'ROTATION_IN_PROGRESS'));

    expect(await api.webhookEndpoints.rotateSecret('whe_1')).toEqual(rotated);
    await expect(api.webhookEndpoints.rotateSecret('whe_1')).rejects.toMatchObject({ status: 409, code: 'ROTATION_IN_PROGRESS' });

    const [sent] = server.apiRequests;
    expect([sent!.method, sent!.path, sent!.body, sent!.headers.get('content-type')]).toEqual([
      'POST',
      '/v1/webhook-endpoints/whe_1/rotate-secret',
      null,
      null,
    ]);
  });

  it('retry, test and replay POST their routes and answer their data', async () => {
    const { api, server } = harness();
    server.answers.push(one(202, { delivery_id: 'whd_2' }), one(202, { delivery_id: 'whd_3' }), one(202, { queued: 118 }));

    expect(await api.webhookEndpoints.retry('whe_1', 'whd_2')).toEqual({ delivery_id: 'whd_2' });
    expect(await api.webhookEndpoints.test('whe_1')).toEqual({ delivery_id: 'whd_3' });
    expect(await api.webhookEndpoints.replay('whe_1', { from: '2026-11-23T00:00:00Z' })).toEqual({ queued: 118 });

    expect(server.apiRequests.map((s) => [s.method, s.path, s.body])).toEqual([
      ['POST', '/v1/webhook-endpoints/whe_1/deliveries/whd_2/retry', null],
      ['POST', '/v1/webhook-endpoints/whe_1/test', null],
      ['POST', '/v1/webhook-endpoints/whe_1/replay', '{"from":"2026-11-23T00:00:00Z"}'],
    ]);
    expect(server.apiRequests[2]!.headers.get('content-type')).toBe('application/json');
  });
});

describe('what is not sent twice: update, rotateSecret, retry, test, replay', () => {
  const unsafe = [
    ['update', (api: ReturnType<typeof harness>['api']) => api.webhookEndpoints.update('whe_1', { enabled: true })],
    ['rotateSecret', (api: ReturnType<typeof harness>['api']) => api.webhookEndpoints.rotateSecret('whe_1')],
    ['retry', (api: ReturnType<typeof harness>['api']) => api.webhookEndpoints.retry('whe_1', 'whd_1')],
    ['test', (api: ReturnType<typeof harness>['api']) => api.webhookEndpoints.test('whe_1')],
    ['replay', (api: ReturnType<typeof harness>['api']) => api.webhookEndpoints.replay('whe_1', { from: 'cur_1' })],
  ] as const;

  it.each(unsafe)('%s: a network error after connecting is thrown, not retried', async (_name, call) => {
    const { api, server, clock } = harness();
    server.answers.push(reset(), one(202, { delivery_id: 'whd_x' }));

    await expect(call(api)).rejects.toMatchObject({ status: 0, code: 'CONNECTION_ERROR' });

    expect(server.apiRequests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it.each(unsafe)('%s: a 500, 502, 503 or 504 is thrown, not retried', async (_name, call) => {
    for (const status of [500, 502, 503, 504]) {
      const { api, server } = harness();
      server.answers.push(envelope(status, `E${status}`), one(202, { delivery_id: 'whd_x' }));
      await expect(call(api)).rejects.toMatchObject({ status, code: `E${status}` });
      expect(server.apiRequests).toHaveLength(1);
    }
  });

  it.each(unsafe)('%s: a 429, a refused connection and a stale token are retried (nothing was done)', async (_name, call) => {
    const { api, server } = harness();
    server.answers.push(
      envelope(429, 'RATE_LIMIT_EXCEEDED', {}, { 'Retry-After': '1' }),
      refused(),
      envelope(401, 'INVALID_ACCESS_TOKEN'),
      one(200, { delivery_id: 'whd_x', secret: 's', queued: 1, ...ENDPOINT }),
    );

    await expect(call(api)).resolves.toBeDefined();

    expect(server.apiRequests).toHaveLength(4);
    expect(server.bearers).toEqual(['Bearer tok_1', 'Bearer tok_1', 'Bearer tok_1', 'Bearer tok_2']);
    const bodies = new Set(server.apiRequests.map((s) => s.body));
    expect(bodies.size).toBe(1); // the same body each time
  });

  it('a 2xx whose body is cut is not sent again (the service acted): CONNECTION_ERROR', async () => {
    const { api, server } = harness();
    const cut = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"data":'));
      },
      pull(controller) {
        controller.error(new TypeError('terminated'));
      },
    });
    server.answers.push(
      new Response(cut, { status: 202, headers: { 'Content-Type': 'application/json' } }),
      one(202, { delivery_id: 'whd_2' }),
    );

    await expect(api.webhookEndpoints.test('whe_1')).rejects.toMatchObject({ status: 0, code: 'CONNECTION_ERROR' });
    expect(server.apiRequests).toHaveLength(1);
  });

  it('a 2xx that is not JSON is INVALID_RESPONSE', async () => {
    const { api, server } = harness();
    server.answers.push(new Response('<html>', { status: 202 }));

    await expect(api.webhookEndpoints.test('whe_1')).rejects.toMatchObject({ status: 202, code: 'INVALID_RESPONSE' });
  });
});

describe('auditEvents.list', () => {
  it('GETs /v1/audit-events with its filters and walks the pages', async () => {
    const { api, server } = harness();
    server.answers.push(page(['aud_1', 'aud_2'], 'cur_1'), page(['aud_3'], null));
    const filters = {
      client_id: 'cli_1',
      route: 'GET /v1/meetings/{meeting_id}',
      status: '4xx',
      resource_id: 'mtg_1',
      occurred_after: '2026-11-01T00:00:00Z',
      occurred_before: '2026-12-01T00:00:00Z',
      limit: 2,
    };

    const ids = (await api.auditEvents.list(filters).toArray()).map((e) => e.id);

    expect(ids).toEqual(['aud_1', 'aud_2', 'aud_3']);
    expect(server.apiRequests.map((s) => `${s.method} ${s.path}`)).toEqual(Array(2).fill('GET /v1/audit-events'));
    const asSent = { ...filters, limit: '2' };
    expect(server.apiRequests.map((s) => query(s.url))).toEqual([asSent, { ...asSent, cursor: 'cur_1' }]);
  });

  it('403 INSUFFICIENT_SCOPE without audit.read', async () => {
    const { api, server } = harness();
    server.answers.push(envelope(403, 'INSUFFICIENT_SCOPE'));
    await expect(api.auditEvents.list().firstPage()).rejects.toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
  });
});
