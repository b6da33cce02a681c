import { ApiError, ConversationApi, realClock } from '../src/index.js';
import { BASE_URL, FakeFetch, contextAnswer, envelope, harness, rejection, until } from './fakes';

describe('AbortSignal and timeout', () => {
  it('a signal aborted before the call rejects with its reason and sends no request', async () => {
    const { api, server } = harness();
    server.answers.push(contextAnswer());
    const controller = new AbortController();
    const reason = new Error('stopped before');
    controller.abort(reason);

    await expect(api.context({ signal: controller.signal })).rejects.toBe(reason);

    expect(server.sent).toHaveLength(0);
    expect(api.transport.tokenRequests).toBe(0);
    expect(api.transport.requests).toBe(0);
  });

  it('a signal aborted before the call sends no request when the token is cached either', async () => {
    const { api, server } = harness();
    server.answers.push(contextAnswer(), contextAnswer());
    await api.context();
    const controller = new AbortController();
    const reason = new Error('stopped before');
    controller.abort(reason);

    await expect(api.context({ signal: controller.signal })).rejects.toBe(reason);

    expect(server.sent).toHaveLength(2);
    expect(api.transport.requests).toBe(1);
  });

  it('a signal aborted during a 429 wait rejects with its reason and sends no further request', async () => {
    const { api, server, clock } = harness();
    clock.hold = true; // the wait ends only by the signal
    server.answers.push(envelope(429, 'RATE_LIMIT_EXCEEDED', {}, { 'Retry-After': '30' }), contextAnswer());
    const controller = new AbortController();
    const reason = new Error('stopped during the wait');

    const call = api.context({ signal: controller.signal });
    await until(() => clock.sleeps.length === 1);
    expect(clock.sleeps).toEqual([30_000]);
    controller.abort(reason);

    await expect(call).rejects.toBe(reason);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.apiRequests).toHaveLength(1);
    expect(server.answers).toHaveLength(1); // the success was never asked for
  });

  it('with the real clock, an abort during a 30 s Retry-After rejects at once', async () => {
    const server = new FakeFetch();
    const api = new ConversationApi({ baseUrl: BASE_URL, clientId: 'c', clientSecret: 's', fetch: server.fetch, clock: realClock });
    server.answers.push(envelope(429, 'RATE_LIMIT_EXCEEDED', {}, { 'Retry-After': '30' }), contextAnswer());
    const controller = new AbortController();
    const reason = new Error('stopped');

    const started = Date.now();
    const call = api.context({ signal: controller.signal });
    await until(() => server.apiRequests.length === 1);
    setTimeout(() => controller.abort(reason), 10);

    await expect(call).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.apiRequests).toHaveLength(1);
  });

  it('the call’s timeout elapsing during a wait rejects with ApiError TIMEOUT', async () => {
    const { api, server, clock } = harness({ retry: { baseDelay: 10 } });
    clock.hold = true;
    server.answers.push(envelope(503, 'SERVICE_UNAVAILABLE'), contextAnswer());

    const error = await rejection(api.context({ timeout: 50 }));

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, code: 'TIMEOUT' });
    expect(clock.sleeps).toEqual([5]);
    expect(server.apiRequests).toHaveLength(1);
  });

  it('the client’s default timeout applies to each call', async () => {
    const { api, server, clock } = harness({ timeout: 50, retry: { baseDelay: 10 } });
    clock.hold = true;
    server.answers.push(new TypeError('fetch failed'), contextAnswer());

    await expect(api.context()).rejects.toMatchObject({ status: 0, code: 'TIMEOUT' });
    expect(clock.sleeps).toEqual([5]);
    expect(server.apiRequests).toHaveLength(1);
  });

  it('an abort with a timeout set still rejects with the signal’s reason, not TIMEOUT', async () => {
    const { api, server, clock } = harness();
    clock.hold = true;
    server.answers.push(envelope(429, 'RATE_LIMIT_EXCEEDED', {}, { 'Retry-After': '1' }));
    const controller = new AbortController();
    const reason = new Error('mine');

    const call = api.context({ signal: controller.signal, timeout: 60_000 });
    await until(() => clock.sleeps.length === 1);
    controller.abort(reason);

    await expect(call).rejects.toBe(reason);
  });
});
