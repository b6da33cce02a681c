import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, JsonFileStore, verifyWebhook } from '../src/index.js';
import { CONTEXT, contextAnswer, envelope, harness, rejection } from './fakes';

/*
 * What is cut or malformed, on either side, is never taken for valid: a body cut mid-read is retried,
 * a 200 that is not JSON is INVALID_RESPONSE, an id or base URL that would reach another route is
 * refused before any request, an unreadable Retry-After gets the normal backoff, and a file that is
 * not the store's own journal is converted or refused, never truncated.
 */

/** A 200 whose body sends `first` and then fails (a connection reset in the middle of the body). */
function cutBody(first: string): Response {
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode(first));
      } else controller.error(new TypeError('terminated'));
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

describe('a failure while the body is read', () => {
  it('is a network error: backed off and retried, and the answer read whole', async () => {
    const { api, server, clock } = harness();
    server.answers.push(cutBody('{"data":{"cli'), contextAnswer());
    await expect(api.context()).resolves.toEqual(CONTEXT);
    expect(server.apiRequests).toHaveLength(2);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('out of attempts, is ApiError CONNECTION_ERROR', async () => {
    const { api, server } = harness({ retry: { maxRetries: 1 } });
    server.answers.push(cutBody('{'), cutBody('{'));
    await expect(api.context()).rejects.toMatchObject({ status: 0, code: 'CONNECTION_ERROR' });
  });

  it('a 200 that is not JSON is ApiError INVALID_RESPONSE', async () => {
    const { api, server } = harness();
    server.answers.push(new Response('<html>proxy error</html>', { status: 200, headers: { 'content-type': 'application/json' } }));
    await expect(api.context()).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
  });
});

describe('inputs the service must never see', () => {
  it('an empty or dot id is refused before any request (it would reach another route)', async () => {
    const { api, server } = harness();
    for (const id of ['', '.', '..']) {
      await expect(api.meetings.get(id)).rejects.toThrow(TypeError);
      await expect(api.chat.message('wa_1', id)).rejects.toThrow(TypeError);
    }
    expect(server.apiRequests).toHaveLength(0);
  });

  it('a base URL without http(s) is refused at construction', () => {
    expect(() => harness({ baseUrl: 'localhost:3000' })).toThrow(TypeError);
  });

  it('an unreadable Retry-After ("1.5") gets the normal backoff, not an immediate retry', async () => {
    const { api, server, clock } = harness();
    clock.randomValue = 0.5;
    server.answers.push(envelope(429, 'RATE_LIMIT_EXCEEDED', {}, { 'Retry-After': '1.5' }), contextAnswer());
    await api.context();
    expect(clock.sleeps).toEqual([500]);
  });

  it("a network error's detail names undici's reason", async () => {
    const { api, server } = harness({ retry: { maxRetries: 0 } });
    server.answers.push(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }));
    const error = (await rejection(api.context())) as ApiError;
    expect(error.detail).toContain('fetch failed: ECONNREFUSED');
  });

  it('an export answer without Feed-Cursor is INVALID_RESPONSE, not a copy without a cursor', async () => {
    const { api, server } = harness();
    server.answers.push(new Response('{"object":"export","records":{},"feed_cursor":"cur_x"}\n', { status: 200 }));
    const records = async () => {
      for await (const _ of api.export()) void _;
    };
    await expect(records()).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it('a malformed webhook secret is the receiver’s TypeError, not a refused delivery', () => {
    let error: unknown;
    try {
      verifyWebhook({ 'webhook-id': 'x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' }, '{}', 'whsec_!!!');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).not.toBe('WebhookVerificationError');
  });
});

describe('JsonFileStore reads only its own journal', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'sdk-store-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('converts a state file of the earlier format (one JSON document) instead of truncating it', async () => {
    const path = join(dir, 'copy.json');
    const value = { object: 'meeting', id: 'mtg_1', parent_id: null, details: { id: 'mtg_1' } };
    await writeFile(path, JSON.stringify({ cursor: 'cur_old', export: null, objects: { 'meeting:mtg_1': value } }));
    const store = await JsonFileStore.open(path);
    expect(store.get('meeting:mtg_1')).toEqual(value);
    expect(store.loadCursor()).toEqual({ cursor: 'cur_old' });
    await store.close();
    expect((await readFile(path, 'utf8')).split('\n')).toEqual([
      `{"put":"meeting:mtg_1","value":${JSON.stringify(value)}}`,
      '{"cursor":"cur_old"}',
      '',
    ]);
  });

  it('refuses a line that is JSON but not a journal line', async () => {
    const path = join(dir, 'copy.json');
    await writeFile(path, `${JSON.stringify({ cursor: 'cur_1', objects: {} })}\n`);
    await expect(JsonFileStore.open(path)).rejects.toThrow(/not a journal line/);
  });
});
