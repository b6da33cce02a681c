import { ApiError } from './errors.js';
import { RateLimitState, parseRateLimit, parseRetryAfter } from './rate-limit.js';

/** How the client retries. Every wait honours the call's `signal` and `timeout`. */
export interface RetryOptions {
  /** Retries of one call after a 429, a 500/502/503/504 or a network error (default 5); the 401 retry is apart. */
  maxRetries?: number;
  /** The first backoff's ceiling in ms (default 1000); it doubles each attempt up to `maxDelay`. */
  baseDelay?: number;
  /** The largest backoff ceiling in ms (default 30000). A `Retry-After` is honoured whatever its length, within the deadline. */
  maxDelay?: number;
}

/** What the client needs of time: the real clock by default; tests pass their own. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1), for the backoff's jitter. */
  random(): number;
}

export const realClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

export interface TransportOptions {
  /** The service's address, e.g. `https://api.example.com` (no trailing `/v1`). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scopes to ask for (default: every scope of the client). */
  scopes?: readonly string[];
  retry?: RetryOptions;
  /** A token is renewed this many seconds before it expires (default 60, at most half its lifetime). */
  renewBeforeSeconds?: number;
  /** Default deadline of each call in ms, retries and their waits included (default: none). */
  timeout?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  clock?: Clock;
  userAgent?: string;
}

/** Per call: an `AbortSignal` and a deadline in ms (retries and waits included); neither is ever waited past. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** The call's deadline in ms, retries, waits and the body included (default: the client's `timeout`). */
  timeout?: number;
}

interface Token {
  value: string;
  scopes: string[];
  /** When to stop using it (ms): its expiry less the renewal margin. */
  renewAt: number;
}

const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);
/**
 * What an `unsafe` call retries: only answers that say the request was refused before it was acted
 * on. A 429 is the rate limiter's refusal, which runs before any route; a 5xx may come after the
 * route acted (the audit row is committed after it, and its failure answers 503).
 */
const UNSAFE_RETRIED_STATUSES = new Set([429]);
/** Statuses whose answer never has a body. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);
/**
 * Network failures that happen before a byte of the request is sent (undici's `cause.code`): no
 * connection was made, so nothing reached the service.
 */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

function neverSent(cause: unknown): boolean {
  const code = (cause as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof code === 'string' && NEVER_SENT.has(code);
}

/**
 * How a call may be retried. `idempotent` (GETs, a create with its `Idempotency-Key`, a delete): after
 * 429, 500, 502, 503, 504 and any network error, as `RetryOptions` says. `unsafe` (an update, a
 * rotation, a retry, a test, a replay: sending one twice does it twice): only when the request
 * surely did nothing: a 429, a `401 INVALID_ACCESS_TOKEN` (retried once with a new token), or a
 * connection that was never made (`ECONNREFUSED`, `ENOTFOUND`, `EAI_AGAIN`, a connect timeout).
 * Any other failure is thrown: a 5xx, a reset, a timeout may come after the service acted.
 */
export type RetryPolicy = 'idempotent' | 'unsafe';
/** The longest timer Node keeps (2^31 − 1 ms): a longer wait would fire at once. */
const MAX_WAIT = 2 ** 31 - 1;
/** The token request's deadline when the client has no default timeout. */
const TOKEN_TIMEOUT = 30_000;

/**
 * The one place requests leave the SDK: a token cached until shortly before it expires and
 * requested once however many calls need it at the same moment; one retry with a fresh token after
 * `401 INVALID_ACCESS_TOKEN`; `429` waits `Retry-After`; 5xx and network errors back off
 * exponentially with full jitter; no wait ever runs past the caller's signal or deadline. Every
 * failure is an `ApiError`.
 */
export class Transport {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  readonly clock: Clock;
  private readonly maxRetries: number;
  private readonly baseDelay: number;
  private readonly maxDelay: number;
  private token: Token | null = null;
  private pendingToken: Promise<Token> | null = null;
  /** The state the last counted answer reported. */
  rateLimit: RateLimitState | null = null;
  /** `/v1` requests sent (attempts, retries included; token requests apart). */
  requests = 0;
  /** Token requests sent. */
  tokenRequests = 0;

  constructor(private readonly options: TransportOptions) {
    if (!/^https?:\/\/[^/]/i.test(options.baseUrl ?? ''))
      throw new TypeError(`baseUrl must be an http(s) URL, not ${JSON.stringify(options.baseUrl)}`);
    if (!options.clientId || !options.clientSecret) throw new TypeError('clientId and clientSecret are required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.clock = options.clock ?? realClock;
    this.maxRetries = options.retry?.maxRetries ?? 5;
    this.baseDelay = options.retry?.baseDelay ?? 1000;
    this.maxDelay = options.retry?.maxDelay ?? 30_000;
  }

  /** The scopes of the current token (a token is requested when there is none). */
  async scopes(options: RequestOptions = {}): Promise<string[]> {
    const call = this.callContext(options);
    try {
      return (await this.accessToken(call)).scopes;
    } finally {
      call.dispose();
    }
  }

  /**
   * Sends a request of the API with the token, retrying as the rules say; resolves with a 2xx
   * answer, rejects with an `ApiError` (or the signal's reason when aborted). The answer's body is
   * read inside the retry loop (a body cut or stalled counts as a network error, retried, and the
   * deadline covers it), unless `streamed`: then it is returned unread, for the caller to stream.
   */
  async send(request: Request, options: RequestOptions = {}, streamed = false, retry: RetryPolicy = 'idempotent'): Promise<Response> {
    const call = this.callContext(options);
    try {
      return await this.sendWithin(request, call, streamed, retry);
    } finally {
      // A streamed body is still being read under the call's signal: its links stay.
      if (!streamed) call.dispose();
    }
  }

  private async sendWithin(request: Request, call: CallContext, streamed: boolean, retry: RetryPolicy): Promise<Response> {
    let reissued = false;
    // Read once: each attempt sends these bytes again (a request's own body can be read only once).
    const payload = request.body === null ? null : await request.arrayBuffer();
    for (let attempt = 0; ; attempt++) {
      const token = await this.accessToken(call);
      const headers = new Headers(request.headers);
      headers.set('Authorization', `Bearer ${token.value}`);
      if (this.options.userAgent) headers.set('User-Agent', this.options.userAgent);
      this.requests++;
      const sent = new Request(request.url, { method: request.method, headers, body: payload });
      const response = await this.attempt(sent, call, attempt, retry);
      if (!response) continue; // a network error, backed off
      this.observe(response);
      if (response.ok) {
        if (streamed) return response;
        const body = await this.readBody(response, request, call, attempt, retry);
        if (body) return body;
        continue; // the body was cut, backed off
      }
      if (response.status === 401 && !reissued) {
        const error = await ApiError.fromResponse(response);
        if (error.code !== 'INVALID_ACCESS_TOKEN') throw error;
        // Stale or revoked: drop it (unless a concurrent call already replaced it) and retry once.
        if (this.token === token) this.token = null;
        reissued = true;
        attempt--;
        continue;
      }
      await this.backOffOrThrow(response, call, attempt, retry);
    }
  }

  /** One fetch: its response, or null after a network error was backed off (thrown when out of attempts, or not to be retried). */
  private async attempt(request: Request, call: CallContext, attempt: number, retry: RetryPolicy = 'idempotent'): Promise<Response | null> {
    try {
      return await this.fetchImpl(request, { signal: call.signal });
    } catch (cause) {
      await this.networkError(cause, request, call, attempt, retry === 'idempotent' || neverSent(cause));
      return null;
    }
  }

  /** The whole body of a success, as a response of its own; null after a cut body was backed off. */
  private async readBody(
    response: Response,
    request: Request,
    call: CallContext,
    attempt: number,
    retry: RetryPolicy = 'idempotent',
  ): Promise<Response | null> {
    try {
      const bytes = await response.arrayBuffer();
      // A 204 (or 205, 304) has no body, and a Response refuses to be given one, even empty.
      const body = NULL_BODY_STATUSES.has(response.status) ? null : bytes;
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (cause) {
      // The server answered 2xx: it acted. An unsafe call is not sent again for its body.
      await this.networkError(cause, request, call, attempt, retry === 'idempotent');
      return null;
    }
  }

  /**
   * A failure without an answer (or in the middle of one): the caller's abort, or a
   * CONNECTION_ERROR backed off (thrown when out of attempts, or at once when not `retried`).
   */
  private async networkError(cause: unknown, request: Request, call: CallContext, attempt: number, retried = true): Promise<void> {
    if (call.signal.aborted) throw this.abortReason(call);
    const error = cause as Error & { cause?: { code?: string; message?: string } };
    // undici reports "fetch failed" and puts the reason (ECONNREFUSED, a reset…) in `cause`.
    const reason = [error?.message ?? String(cause), error?.cause?.code ?? error?.cause?.message].filter(Boolean).join(': ');
    const failure = new ApiError({
      status: 0,
      code: 'CONNECTION_ERROR',
      detail: `${request.method} ${new URL(request.url).pathname}: ${reason}`,
      cause,
    });
    if (!retried) throw failure;
    await this.wait(this.backoff(attempt), call, attempt, failure);
  }

  /** A retried status waits its turn (or throws when out of attempts or past the deadline); any other throws. */
  private async backOffOrThrow(response: Response, call: CallContext, attempt: number, retry: RetryPolicy = 'idempotent'): Promise<void> {
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'), this.clock.now());
    const error = await ApiError.fromResponse(response, retryAfter);
    if (!(retry === 'idempotent' ? RETRIED_STATUSES : UNSAFE_RETRIED_STATUSES).has(response.status)) throw error;
    const delay = retryAfter !== null ? retryAfter * 1000 : this.backoff(attempt);
    await this.wait(delay, call, attempt, error);
  }

  /** Waits `delay` ms before the next attempt, unless attempts are spent or the wait would end past the deadline: then `error`. */
  private async wait(delay: number, call: CallContext, attempt: number, error: ApiError): Promise<void> {
    if (attempt >= this.maxRetries) throw error;
    if (call.deadline !== null && this.clock.now() + delay >= call.deadline) throw error;
    try {
      await this.clock.sleep(Math.min(delay, MAX_WAIT), call.signal);
    } catch {
      throw this.abortReason(call);
    }
  }

  /** Full jitter: uniform in [0, min(maxDelay, baseDelay · 2^attempt)). */
  private backoff(attempt: number): number {
    return this.clock.random() * Math.min(this.maxDelay, this.baseDelay * 2 ** attempt);
  }

  private observe(response: Response): void {
    const state = parseRateLimit(response.headers, new Date(this.clock.now()));
    if (state) this.rateLimit = state;
  }

  /** The token to send: the cached one while it is fresh, else one request shared by every caller waiting for it. */
  private async accessToken(call: CallContext): Promise<Token> {
    if (call.signal.aborted) throw this.abortReason(call); // before a token request is started that nobody would wait for
    if (this.token && this.clock.now() < this.token.renewAt) return this.token;
    // Bound to none of the callers' signals (only to the client's default timeout, 30 s without
    // one): one caller aborting, or its deadline passing, must not fail the request the others are
    // waiting for, and an endpoint that never answers must not hold them all for ever.
    if (!this.pendingToken) {
      const shared = this.callContext({ timeout: this.options.timeout ?? TOKEN_TIMEOUT });
      this.pendingToken = this.issueToken(shared).finally(() => {
        shared.dispose();
        this.pendingToken = null;
      });
    }
    const pending = this.pendingToken;
    // This caller stops waiting when its own signal aborts; the request goes on for the others.
    return await new Promise<Token>((resolve, reject) => {
      const onAbort = () => reject(this.abortReason(call));
      if (call.signal.aborted) return onAbort();
      call.signal.addEventListener('abort', onAbort, { once: true });
      pending.then(resolve, reject).finally(() => call.signal.removeEventListener('abort', onAbort));
    });
  }

  private async issueToken(call: CallContext): Promise<Token> {
    const { clientId, clientSecret, scopes } = this.options;
    const basic = btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`);
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes?.length) body.set('scope', scopes.join(' '));
    for (let attempt = 0; ; attempt++) {
      const request = new Request(`${this.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: body.toString(),
      });
      this.tokenRequests++;
      const sentAt = this.clock.now();
      const response = await this.attempt(request, call, attempt);
      if (!response) continue;
      if (!response.ok) {
        await this.backOffOrThrow(response, call, attempt);
        continue;
      }
      const answer = await this.readBody(response, request, call, attempt);
      if (!answer) continue;
      let issued: { access_token?: string; expires_in?: number; scope?: string } = {};
      try {
        issued = (await answer.json()) as typeof issued;
      } catch {
        issued = {};
      }
      if (typeof issued.access_token !== 'string' || typeof issued.expires_in !== 'number')
        throw new ApiError({
          status: response.status,
          code: 'INVALID_RESPONSE',
          detail: 'the token endpoint answered without access_token or expires_in',
        });
      const lifetime = issued.expires_in * 1000;
      const margin = Math.min((this.options.renewBeforeSeconds ?? 60) * 1000, lifetime / 2);
      // Counted from when the request was sent: the token cannot have been issued before that.
      this.token = {
        value: issued.access_token,
        scopes: (issued.scope ?? '').split(' ').filter(Boolean),
        renewAt: sentAt + lifetime - margin,
      };
      return this.token;
    }
  }

  /**
   * One call's signal: the caller's, and the call's deadline, linked by hand (AbortSignal.any needs
   * Node 20.3 and keeps every call linked to a long-lived signal); `dispose` unlinks them.
   */
  private callContext(options: RequestOptions): CallContext {
    // An explicit `timeout: undefined` means none (the export stream: its body may take hours).
    const timeout = 'timeout' in options ? options.timeout : this.options.timeout;
    const deadline = timeout === undefined ? null : this.clock.now() + timeout;
    const controller = new AbortController();
    const caller = options.signal;
    const onAbort = () => controller.abort(caller!.reason);
    if (caller?.aborted) controller.abort(caller.reason);
    else caller?.addEventListener('abort', onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (timeout !== undefined) {
      timer = setTimeout(() => controller.abort(new DOMException('The call timed out', 'TimeoutError')), Math.min(timeout, MAX_WAIT));
      timer.unref?.();
    }
    return {
      signal: controller.signal,
      deadline,
      timedOut: () => timeout !== undefined && !caller?.aborted,
      dispose: () => {
        clearTimeout(timer);
        caller?.removeEventListener('abort', onAbort);
      },
    };
  }

  /** The caller's own abort reason, or a `TIMEOUT` error when it was the call's deadline. */
  private abortReason(call: CallContext): unknown {
    if (call.timedOut()) return new ApiError({ status: 0, code: 'TIMEOUT', detail: 'the call did not complete within its timeout' });
    return call.signal.reason;
  }
}

interface CallContext {
  signal: AbortSignal;
  /** The call's deadline (ms since the epoch), or null. */
  deadline: number | null;
  timedOut(): boolean;
  /** Unlinks the caller's signal and clears the deadline's timer. */
  dispose(): void;
}
