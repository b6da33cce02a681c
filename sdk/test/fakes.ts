/**
 * Fakes for the SDK's unit specs: a fetch that records every request and answers from a script,
 * and a clock whose `sleep` records the delay and moves a virtual `now` (nothing waits on real time).
 */
import { Clock, ConversationApi, ConversationApiOptions } from '../src/index.js';

/** One request as the fake fetch received it. */
export interface Sent {
  method: string;
  url: URL;
  /** The URL's pathname (percent-encoding kept). */
  path: string;
  headers: Headers;
  /** The request's body as text (token requests), null without one. */
  body: string | null;
  signal: AbortSignal | undefined;
}

/** A scripted answer: a response, an error thrown by fetch, or a function producing either. */
export type Answer = Response | Error | ((sent: Sent) => Response | Promise<Response>);

export const BASE_URL = 'https://api.test';
/** A virtual epoch (2023-11-14T22:13:20Z). */
export const T0 = 1_700_000_000_000;

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

/** The `/v1` error envelope. */
export function envelope(
  status: number,
  code: string,
  extra: { type?: string; detail?: string; request_id?: string } = {},
  headers: Record<string, string> = {},
): Response {
  return json(
    status,
    {
      error: {
        type: extra.type ?? 'InvalidRequestError',
        title: code,
        code,
        detail: extra.detail ?? `detail of ${code}`,
        request_id: extra.request_id ?? `req_${code}`,
      },
    },
    headers,
  );
}

export function tokenAnswer(accessToken: string, expiresIn = 3600, scope = 'meetings.read calls.read'): Response {
  return json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, scope });
}

export class FakeClock implements Clock {
  t = T0;
  /** Every delay `sleep` was asked for, in order. */
  readonly sleeps: number[] = [];
  /** What `random()` answers. */
  randomValue = 0.5;
  /** When true, a sleep never ends by itself: only its signal aborting ends it (with the reason). */
  hold = false;

  now = (): number => this.t;
  random = (): number => this.randomValue;
  sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.sleeps.push(ms);
    if (this.hold)
      return new Promise<void>((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    this.t += ms;
    return Promise.resolve();
  };
}

/**
 * A fetch answering `/oauth/token` from `tokens` (by default a fresh `tok_<n>` valid an hour) and
 * every other path from `answers`, in order; an unscripted request answers 418 `UNSCRIPTED`
 * (never retried, so a test sees it). Like the real one, it rejects with the signal's reason when
 * the signal is aborted before or while it answers.
 */
export class FakeFetch {
  readonly sent: Sent[] = [];
  readonly tokens: Answer[] = [];
  readonly answers: Answer[] = [];
  private issued = 0;

  get tokenRequests(): Sent[] {
    return this.sent.filter((s) => s.path === '/oauth/token');
  }
  get apiRequests(): Sent[] {
    return this.sent.filter((s) => s.path !== '/oauth/token');
  }
  /** The bearer token of each `/v1` request, in order. */
  get bearers(): Array<string | null> {
    return this.apiRequests.map((s) => s.headers.get('authorization'));
  }

  readonly fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const signal = init?.signal ?? request.signal ?? undefined;
    const url = new URL(request.url);
    const sent: Sent = {
      method: request.method,
      url,
      path: url.pathname,
      headers: new Headers(request.headers),
      body: request.body ? await request.clone().text() : null,
      signal,
    };
    this.sent.push(sent);
    if (signal?.aborted) throw signal.reason;
    const answer =
      sent.path === '/oauth/token'
        ? (this.tokens.shift() ?? tokenAnswer(`tok_${++this.issued}`))
        : (this.answers.shift() ?? envelope(418, 'UNSCRIPTED'));
    if (answer instanceof Error) throw answer;
    if (answer instanceof Response) return answer;
    const pending = Promise.resolve(answer(sent));
    if (!signal) return pending;
    // Rejects with the signal's reason if it aborts before the answer comes, as fetch does.
    return await new Promise<Response>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  };
}

export interface Harness {
  api: ConversationApi;
  server: FakeFetch;
  clock: FakeClock;
}

export function harness(options: Partial<ConversationApiOptions> = {}): Harness {
  const server = new FakeFetch();
  const clock = new FakeClock();
  const api = new ConversationApi({
    baseUrl: BASE_URL,
    clientId: 'client_1',
    clientSecret: 'secret_1',
    fetch: server.fetch,
    clock,
    ...options,
  });
  return { api, server, clock };
}

/** Lets every pending promise and I/O callback run (a few macrotask turns), until `condition` holds. */
export async function until(condition: () => boolean, turns = 200): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the condition did not hold');
}

/** A promise and the functions that settle it. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (reason: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** What a promise settled with: `{ ok: true, value }` or `{ ok: false, error }` (to assert on a rejection's exact value). */
export async function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The rejection of a promise that must reject (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  const result = await settle(promise);
  if (result.ok) throw new Error(`expected a rejection, got ${JSON.stringify(result.value)}`);
  return result.error;
}

export const CONTEXT = { client_id: 'client_1', company_id: 'cmp_1', scopes: ['meetings.read'] };
export function contextAnswer(headers: Record<string, string> = {}): Response {
  return json(200, { data: CONTEXT, request_id: 'req_ctx' }, headers);
}
