import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { ERROR_CODES, ErrorCode, GENERIC_INTERNAL_DETAIL } from '../../src/common/errors/error-codes';
import { PipelineProbeModule, PROBE_ITEMS } from '../support/pipeline-probe.module';
import { createTestApp } from '../support/test-app';
import { walkPages } from '../support/walk-pages';

const REQUEST_ID = /^req_[0-9A-Za-z]{22}$/;

describe('request pipeline', () => {
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    app = await createTestApp({ extra: [PipelineProbeModule] });
    http = request(app.getHttpServer());
  });
  afterAll(() => app.close());

  function expectErrorEnvelope(res: request.Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(Object.keys(res.body.error).sort()).toEqual(['code', 'detail', 'request_id', 'title', 'type']);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  }

  describe('envelopes', () => {
    it('wraps a single resource in {data, request_id}', async () => {
      const res = await http.get('/v1/_probe/items/item_03').expect(200);
      expect(res.body).toEqual({ data: { id: 'item_03' }, request_id: res.headers['x-request-id'] });
    });

    it('wraps a list in {data, pagination, request_id}', async () => {
      const res = await http.get('/v1/_probe/items?limit=5').expect(200);
      expect(Object.keys(res.body)).toEqual(['data', 'pagination', 'request_id']);
      expect(res.body.data).toHaveLength(5);
      expect(res.body.pagination).toEqual({ limit: 5, has_more: true, next_cursor: expect.stringMatching(/^cur_[A-Za-z0-9_-]+$/) });
    });

    it('wraps an unpaginated list in {data, request_id}', async () => {
      const res = await http.get('/v1/_probe/answers').expect(200);
      expect(res.body).toEqual({ data: [{ n: 1 }, { n: 2 }], request_id: res.headers['x-request-id'] });
    });

    it('applies the default page size of 50', async () => {
      const res = await http.get('/v1/_probe/items').expect(200);
      expect(res.body.pagination.limit).toBe(50);
      expect(res.body.data).toHaveLength(PROBE_ITEMS.length);
      expect(res.body.pagination).toMatchObject({ has_more: false, next_cursor: null });
    });
  });

  describe('headers', () => {
    it('gives every response a fresh X-Request-Id equal to the body request_id', async () => {
      const [a, b] = await Promise.all([http.get('/v1/_probe/items/item_01'), http.get('/v1/_probe/items/item_01')]);
      expect(a.headers['x-request-id']).toMatch(REQUEST_ID);
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
      expect(a.body.request_id).toBe(a.headers['x-request-id']);
    });

    it('answers conditional requests with the data: no validators are given, so nothing is "not modified"', async () => {
      for (const [name, value] of [
        ['If-None-Match', '*'],
        ['If-None-Match', 'W/"x"'],
        ['If-Modified-Since', 'Thu, 01 Jan 2099 00:00:00 GMT'],
      ]) {
        const res = await http.get('/v1/_probe/items/item_03').set(name, value);
        expect({ header: name, status: res.status, id: res.body.data?.id }).toEqual({ header: name, status: 200, id: 'item_03' });
        expect((await http.get('/health/live').set(name, value)).status).toBe(200);
      }
      const plain = await http.get('/v1/_probe/items/item_03');
      expect([plain.headers.etag, plain.headers['last-modified']]).toEqual([undefined, undefined]);
    });

    it('ignores a client-supplied X-Request-Id', async () => {
      const res = await http.get('/v1/_probe/items/item_01').set('X-Request-Id', 'req_forged');
      expect(res.headers['x-request-id']).not.toBe('req_forged');
    });

    it.each(['/v1/_probe/items', '/v1/_probe/items/nope', '/v1/unknown', '/oauth/token'])('forbids caching of %s', async (path) => {
      const res = await http.get(path);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.pragma).toBe('no-cache');
    });

    it('puts a request id on probe responses too', async () => {
      const res = await http.get('/health/live').expect(200);
      expect(res.headers['x-request-id']).toMatch(REQUEST_ID);
      expect(res.headers['x-powered-by']).toBeUndefined();
    });
  });

  describe('query validation', () => {
    it.each([
      ['an unknown parameter', '/v1/_probe/items?foo=1', 'INVALID_REQUEST'],
      ['an unknown parameter on a route without parameters', '/v1/_probe/items/item_01?expand=all', 'INVALID_REQUEST'],
      ['a repeated parameter', '/v1/_probe/items?limit=1&limit=2', 'INVALID_REQUEST'],
      ['an empty parameter', '/v1/_probe/items?type=', 'INVALID_REQUEST'],
      ['a parameter without value', '/v1/_probe/items?type', 'INVALID_REQUEST'],
      ['bracket syntax', '/v1/_probe/items?type[]=video', 'INVALID_REQUEST'],
      ['limit 0', '/v1/_probe/items?limit=0', 'INVALID_LIMIT'],
      ['limit 101', '/v1/_probe/items?limit=101', 'INVALID_LIMIT'],
      ['a fractional limit', '/v1/_probe/items?limit=1.5', 'INVALID_LIMIT'],
      ['a negative limit', '/v1/_probe/items?limit=-1', 'INVALID_LIMIT'],
      ['a word as limit', '/v1/_probe/items?limit=ten', 'INVALID_LIMIT'],
      ['a date without time', '/v1/_probe/items?created_after=2026-01-01', 'INVALID_DATETIME'],
      ['a date-time without offset', '/v1/_probe/items?created_after=2026-01-01T00:00:00', 'INVALID_DATETIME'],
      ['an epoch number', '/v1/_probe/items?created_before=1767225600', 'INVALID_DATETIME'],
      ['an impossible date', '/v1/_probe/items?created_before=2026-02-30T00:00:00Z', 'INVALID_DATETIME'],
      ['an unknown enum value', '/v1/_probe/items?type=hologram', 'INVALID_FILTER'],
      ['a boolean spelled 1', '/v1/_probe/items?has_transcript=1', 'INVALID_FILTER'],
      ['a boolean in capitals', '/v1/_probe/items?has_transcript=TRUE', 'INVALID_FILTER'],
      ['an invalid email', '/v1/_probe/items?owner_email=not-an-email', 'INVALID_FILTER'],
      [
        'after equal to before',
        '/v1/_probe/items?created_after=2026-01-01T00:00:00Z&created_before=2026-01-01T00:00:00Z',
        'INVALID_FILTER',
      ],
      [
        'after later than before (offsets)',
        '/v1/_probe/items?created_after=2026-01-01T00:00:00-03:00&created_before=2026-01-01T01:00:00Z',
        'INVALID_FILTER',
      ],
      ['a cursor of the wrong form', '/v1/_probe/items?cursor=abc', 'INVALID_CURSOR'],
    ])('answers 400 for %s', async (_name, path, code) => {
      expectErrorEnvelope(await http.get(path), 400, code);
    });

    it('answers 400 INVALID_DATETIME saying to encode "+" as %2B when an offset\'s "+" arrived as a space', async () => {
      // An unencoded `+` in a query string is a space to every form-encoding reader.
      for (const value of ['2026-01-01T00:00:00+03:00', '2026-01-01T00:00:00.5+03:00', '2026-01-01T00:00:00%2003:00']) {
        const res = await http.get(`/v1/_probe/items?created_after=${value}`);
        expectErrorEnvelope(res, 400, 'INVALID_DATETIME');
        expect(res.body.error.detail).toContain('%2B');
      }
      // A value that is wrong in another way gets no such advice, and the encoded offset is accepted.
      const other = await http.get('/v1/_probe/items?created_after=2026-01-01T00:00:00');
      expectErrorEnvelope(other, 400, 'INVALID_DATETIME');
      expect(other.body.error.detail).not.toContain('%2B');
      await http.get('/v1/_probe/items?created_after=2026-01-01T00:00:00%2B03:00').expect(200);
    });

    it('accepts valid filters, with offsets and case-insensitive emails', async () => {
      const res = await http
        .get('/v1/_probe/items')
        .query({
          type: 'audio',
          has_transcript: 'false',
          owner_email: 'Ana.Souza@Example.com.br',
          created_after: '2026-01-01T00:00:00-03:00',
          created_before: '2026-01-01T03:00:00.000001Z',
        })
        .expect(200);
      expect(res.body.data.every((i: { type: string }) => i.type === 'audio')).toBe(true);
    });

    it('does not echo long parameter names back', async () => {
      const res = await http.get(`/v1/_probe/items?${'x'.repeat(500)}=1`);
      expectErrorEnvelope(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.detail.length).toBeLessThan(120);
    });
  });

  describe('cursors', () => {
    it('visits every item exactly once and ends with has_more false', async () => {
      const { items: seen, pages } = await walkPages<string, string>(async (cursor) => {
        const res: request.Response = await http
          .get('/v1/_probe/items')
          .query({ limit: 4, ...(cursor ? { cursor } : {}) })
          .expect(200);
        const next: string | null = res.body.pagination.next_cursor;
        expect(res.body.pagination.has_more).toBe(next !== null);
        return { items: res.body.data.map((i: { id: string }) => i.id), next };
      });
      expect(seen).toEqual(PROBE_ITEMS.map((i) => i.id));
      expect(pages.length).toBe(Math.ceil(PROBE_ITEMS.length / 4));
    });

    it('lets limit change between pages', async () => {
      const first = await http.get('/v1/_probe/items?limit=2').expect(200);
      const next = await http.get('/v1/_probe/items').query({ limit: 3, cursor: first.body.pagination.next_cursor }).expect(200);
      expect(next.body.data.map((i: { id: string }) => i.id)).toEqual(['item_02', 'item_03', 'item_04']);
    });

    it('answers 400 INVALID_CURSOR when the filters change mid-traversal', async () => {
      const first = await http.get('/v1/_probe/items?limit=2&type=video').expect(200);
      expectErrorEnvelope(
        await http.get('/v1/_probe/items').query({ type: 'audio', cursor: first.body.pagination.next_cursor }),
        400,
        'INVALID_CURSOR',
      );
      expectErrorEnvelope(await http.get('/v1/_probe/items').query({ cursor: first.body.pagination.next_cursor }), 400, 'INVALID_CURSOR');
    });

    it('answers 400 INVALID_CURSOR for an edited cursor', async () => {
      const cursor: string = (await http.get('/v1/_probe/items?limit=2').expect(200)).body.pagination.next_cursor;
      const i = cursor.length - 5;
      const edited = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
      expectErrorEnvelope(await http.get('/v1/_probe/items').query({ cursor: edited }), 400, 'INVALID_CURSOR');
    });
  });

  describe('errors', () => {
    it('answers an unknown route with 404 RESOURCE_NOT_FOUND in the envelope', async () => {
      const res = await http.get('/v1/does-not-exist');
      expectErrorEnvelope(res, 404, 'RESOURCE_NOT_FOUND');
      expect(res.body.error.type).toBe('NotFoundError');
    });

    it('answers a known path with another method with 405 and Allow', async () => {
      for (const method of ['post', 'put', 'delete', 'patch'] as const) {
        const res = await http[method]('/v1/_probe/items/item_01').send({ a: 1 });
        expectErrorEnvelope(res, 405, 'METHOD_NOT_ALLOWED');
        expect(res.body.error.type).toBe('InvalidRequestError');
        expect(res.headers.allow).toBe('GET, HEAD');
      }
    });

    it('does not read a malformed or oversized body on /v1', async () => {
      const malformed = await http.post('/v1/_probe/items').set('Content-Type', 'application/json').send('{"a":');
      expectErrorEnvelope(malformed, 405, 'METHOD_NOT_ALLOWED');
      const big = await http
        .post('/v1/_probe/items')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ a: 'x'.repeat(2_000_000) }));
      expectErrorEnvelope(big, 405, 'METHOD_NOT_ALLOWED');
    });

    it.each(Object.keys(ERROR_CODES) as ErrorCode[])('renders %s with its status and type', async (code) => {
      const res = await http.get(`/v1/_probe/errors/${code}`);
      expectErrorEnvelope(res, ERROR_CODES[code].status, code);
      expect(res.body.error.type).toBe(ERROR_CODES[code].type);
      expect(res.body.error.title).toBe(ERROR_CODES[code].title);
    });

    it('answers an unexpected failure with a fixed generic 500 that leaks nothing', async () => {
      const res = await http.get('/v1/_probe/errors/crash');
      expectErrorEnvelope(res, 500, 'INTERNAL_ERROR');
      expect(res.body.error).toMatchObject({ type: 'InternalError', detail: GENERIC_INTERNAL_DETAIL });
      expect(res.text).not.toMatch(/secret|SELECT|tok_live|at .*\.ts|\/work\//);
    });

    it.each(['db-down', 'pool-timeout'])('answers a database outage (%s) with 503 SERVICE_UNAVAILABLE, not 500', async (kind) => {
      const res = await http.get(`/v1/_probe/errors/${kind}`);
      expectErrorEnvelope(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.body.error.type).toBe('ServiceUnavailableError');
    });

    it('answers GET /oauth/token with 405 and Allow: POST, in the OAuth shape', async () => {
      const res = await http.get('/oauth/token');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.body).toEqual({ error: 'METHOD_NOT_ALLOWED', error_description: expect.any(String) });
      expect(res.headers['x-request-id']).toMatch(REQUEST_ID);
    });
  });
});
