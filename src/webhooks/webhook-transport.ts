import http from 'node:http';
import https from 'node:https';
import { LookupFunction, Socket } from 'node:net';
import { codeOf, Destination, DestinationPolicy, DestinationRefused, hostOf } from './webhook-destination';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface AttemptResult {
  /** True only for a 2xx answer. */
  delivered: boolean;
  /** The HTTP status when an answer came, else null. */
  status: number | null;
  /** A short reason when not delivered; never the body, the headers or the URL (its query may hold a token). */
  error: string | null;
  /** From the start of the attempt to the answer's headers or the failure, in whole milliseconds. */
  latencyMs: number;
}

export interface TransportOptions {
  /** WEBHOOK_ALLOW_PRIVATE=1, for development: plain http and private, loopback and link-local addresses permitted. */
  allowPrivate: boolean;
  /** From a socket being assigned to its TCP connect (http) or TLS handshake (https) done. */
  connectTimeoutMs: number;
  /** The whole attempt: DNS, connect, the answer's headers and the capped body. */
  totalTimeoutMs: number;
  /** The answer's body is read and dropped up to this many bytes, then the connection is destroyed. */
  maxResponseBytes: number;
  /** All addresses of a hostname; tests inject fakes. */
  resolve?: (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;
}

export const DEFAULT_TRANSPORT: Omit<TransportOptions, 'allowPrivate'> = {
  connectTimeoutMs: 5_000,
  // The contract: a 2xx within 10 s is success.
  totalTimeoutMs: 10_000,
  maxResponseBytes: 65_536,
};

const USER_AGENT = 'ConversationReadAPI-Webhooks/1';

/** A refusal or failure before any answer, already phrased for AttemptResult.error. */
class AttemptFailure extends Error {}

/**
 * POSTs signed events to integrators' endpoints. Each attempt resolves the hostname once,
 * refuses it if any of its addresses is forbidden, then connects to the first one through a
 * `lookup` that returns it: no second resolution happens between the check and the connect, so
 * a DNS answer cannot rebind to an internal address. TLS still verifies the certificate against
 * the hostname (Node sends it as SNI and checks it, since `host` stays the name).
 *
 * Only the first checked address is tried; a host whose first address is unreachable fails the
 * attempt and the worker's retry resolves again.
 *
 * Connections are kept alive per origin. A reused connection was checked when it was opened,
 * and each attempt still checks the current DNS answer before using the pool.
 */
export class WebhookTransport {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly policy: DestinationPolicy;
  private closed = false;

  constructor(private readonly options: TransportOptions) {
    // `timeout` closes connections idle in the pool after 4 s, before common servers' keep-alive
    // timeouts (Node's 5 s) close them while a request is being written.
    const agentOptions = { keepAlive: true, maxSockets: 64, timeout: 4_000 };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
    this.policy = new DestinationPolicy(options.allowPrivate, options.resolve);
  }

  /** One attempt; never throws: every failure is an AttemptResult. */
  async send(request: WebhookRequest): Promise<AttemptResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.options.totalTimeoutMs);
    try {
      return await this.attempt(request, deadline.signal, latency);
    } catch (error) {
      return { delivered: false, status: null, error: reasonOf(error), latencyMs: latency() };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Destroys the pooled connections; later sends fail with 'transport closed'. */
  close(): void {
    this.closed = true;
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private async attempt(request: WebhookRequest, deadline: AbortSignal, latency: () => number): Promise<AttemptResult> {
    if (this.closed) throw new AttemptFailure('transport closed');
    const refusal = this.policy.refusedUrl(request.url);
    if (refusal) throw new AttemptFailure(`refused destination: ${refusal}`);
    const url = new URL(request.url);
    const destination = await beforeDeadline(this.destination(hostOf(url)), deadline, this.timedOut());
    return this.exchange(url, destination, request, deadline, latency);
  }

  /** The policy's pinned address for `host`; its refusals phrased as attempt failures. */
  private async destination(host: string): Promise<Destination> {
    try {
      return await this.policy.destination(host);
    } catch (error) {
      throw new AttemptFailure(
        error instanceof DestinationRefused ? `refused destination: ${(error as Error).message}` : (error as Error).message,
      );
    }
  }

  private exchange(
    url: URL,
    destination: Destination,
    request: WebhookRequest,
    deadline: AbortSignal,
    latency: () => number,
  ): Promise<AttemptResult> {
    const secure = url.protocol === 'https:';
    const { connectTimeoutMs, maxResponseBytes } = this.options;
    return new Promise<AttemptResult>((settle) => {
      let settled = false;
      let connectTimer: NodeJS.Timeout | undefined;
      /** Set once the answer's headers came: what the attempt returns however the body ends. */
      let answer: AttemptResult | undefined;
      const done = (result: AttemptResult) => {
        settled = true;
        clearTimeout(connectTimer);
        deadline.removeEventListener('abort', onDeadline);
        settle(result);
      };
      const fail = (error: string) => done(answer ?? { delivered: false, status: null, error, latencyMs: latency() });
      const onDeadline = () => {
        req.socket?.destroy();
        req.destroy();
        fail(this.timedOut());
      };

      const req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: outgoingHeaders(request),
        lookup: pinnedLookup(destination),
      });
      req.on('error', (error) => fail(reasonOf(error)));
      req.on('close', () => fail('connection closed before an answer'));
      if (deadline.aborted) return onDeadline();
      deadline.addEventListener('abort', onDeadline, { once: true });

      req.on('socket', (socket: Socket) => {
        // A pooled connection is already up; a new one gets connectTimeoutMs to connect (and handshake).
        if (settled || req.reusedSocket) return;
        connectTimer = setTimeout(() => {
          // The socket itself too: destroying the request alone leaves a TLS socket in its
          // handshake open (seen: a server that accepts and never speaks kept the connection).
          socket.destroy();
          req.destroy();
          fail(`connect timed out after ${connectTimeoutMs} ms`);
        }, connectTimeoutMs);
        socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      });

      req.on('response', (res: http.IncomingMessage) => {
        clearTimeout(connectTimer);
        const result = judge(res.statusCode ?? 0, latency());
        answer = result;
        // Read and drop the body up to the cap, so a short one leaves the connection reusable;
        // past the cap the connection is destroyed, so an endless body costs neither time nor memory.
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received < maxResponseBytes) return;
          res.destroy();
          req.destroy();
          done(result);
        });
        res.on('end', () => done(result));
        res.on('error', () => done(result));
      });

      req.end(request.body);
    });
  }

  private timedOut(): string {
    return `timed out after ${this.options.totalTimeoutMs} ms`;
  }
}

/** The caller's headers without the framing ones (the transport writes those), plus defaults. */
function outgoingHeaders(request: WebhookRequest): Record<string, string> {
  const framing = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !framing.has(name.toLowerCase())));
  const has = (name: string) => Object.keys(headers).some((key) => key.toLowerCase() === name);
  if (!has('content-type')) headers['content-type'] = 'application/json';
  if (!has('user-agent')) headers['user-agent'] = USER_AGENT;
  headers['content-length'] = String(Buffer.byteLength(request.body));
  return headers;
}

/** A `lookup` that answers the already checked address, in both shapes net.connect may ask for. */
function pinnedLookup({ address, family }: Destination): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** Headers came: a 2xx is delivered, a 3xx is not followed (it could point anywhere, internal included). */
function judge(status: number, latencyMs: number): AttemptResult {
  if (status >= 200 && status < 300) return { delivered: true, status, error: null, latencyMs };
  const error = status >= 300 && status < 400 ? `redirect not followed (HTTP ${status})` : `HTTP ${status}`;
  return { delivered: false, status, error, latencyMs };
}

/** The promise's value, or a failure once the deadline passes (the promise itself cannot be cancelled). */
function beforeDeadline<T>(promise: Promise<T>, deadline: AbortSignal, reason: string): Promise<T> {
  if (deadline.aborted) return Promise.reject(new AttemptFailure(reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AttemptFailure(reason));
    deadline.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => deadline.removeEventListener('abort', onAbort));
  });
}

/** The reasons of socket errors, by code (exported for errorKindOf's spec, which judges every one). */
export const SOCKET_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connect timed out',
  ERR_INVALID_CHAR: 'invalid request header',
  ERR_INVALID_HTTP_TOKEN: 'invalid request header',
  ERR_HTTP_INVALID_HEADER_VALUE: 'invalid request header',
};

/**
 * A short reason from an error's code only: messages may quote hosts, headers or values. Every
 * reason an attempt can end with is phrased here, in `judge`, or as an AttemptFailure above
 * (errorKindOf, in webhook-delivery.ts, sorts them into the API's kinds: keep the two together).
 */
export function reasonOf(error: unknown): string {
  if (error instanceof AttemptFailure) return error.message;
  const code = codeOf(error);
  if (!code) return 'request failed';
  // Node's ECONNRESET 'socket hang up': the connection closed before any answer.
  if (code === 'ECONNRESET' && error instanceof Error && error.message === 'socket hang up') return 'connection closed before an answer';
  if (SOCKET_REASONS[code]) return SOCKET_REASONS[code];
  if (code.startsWith('HPE_')) return `invalid HTTP answer (${code})`;
  if (/CERT|SSL|TLS|EPROTO/.test(code)) return `TLS failed (${code})`;
  return `request failed (${code})`;
}
