import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, LookupFunction, Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

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

/**
 * Cloud instance-metadata and credential endpoints, refused always, even with
 * WEBHOOK_ALLOW_PRIVATE=1, since they hand out the host's credentials: the whole IPv4 link-local
 * range 169.254.0.0/16 (AWS, GCP, Azure and OpenStack metadata at 169.254.169.254, the ECS task
 * credentials at 169.254.170.2 and 169.254.170.23, and whatever a provider adds there), AWS's
 * IPv6 ones and Alibaba's. An IPv4 address is judged in every IPv6 form that carries it.
 */
const METADATA_V4_RANGE = ipaddr.parseCIDR('169.254.0.0/16') as [ipaddr.IPv4, number];
const METADATA_ADDRESSES = new Set(['fd00:ec2::254', 'fd00:ec2::23', '100.100.100.200']);
const METADATA_NAMES = ['metadata.google.internal', 'metadata'];

/** Why `address` (any textual form) is a metadata endpoint; null when it is not. */
export function metadataAddress(address: string): string | null {
  if (notAnAddress(address) || !ipaddr.isValid(address)) return null;
  const ip = ipaddr.process(address);
  const v4 = ip.kind() === 'ipv4' ? (ip as ipaddr.IPv4) : carriedIPv4(ip as ipaddr.IPv6);
  const metadata = (v4 && (v4.match(METADATA_V4_RANGE) || METADATA_ADDRESSES.has(v4.toString()))) || METADATA_ADDRESSES.has(ip.toString());
  return metadata ? `${address} is a cloud metadata address` : null;
}

/** The well-known NAT64 prefix for local use (RFC 8215). */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48') as [ipaddr.IPv6, number];
/** IPv4-translated addresses (RFC 6145, ::ffff:0:a.b.c.d). */
const TRANSLATED = ipaddr.parseCIDR('::ffff:0:0:0/96') as [ipaddr.IPv6, number];

/** The IPv4 address an IPv6 address carries: NAT64 (both prefixes), 6to4, IPv4-compatible or IPv4-translated; null otherwise. */
function carriedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const low = new ipaddr.IPv4([ip.parts[6] >> 8, ip.parts[6] & 0xff, ip.parts[7] >> 8, ip.parts[7] & 0xff]);
  if (ip.match(LOCAL_NAT64) || ip.match(TRANSLATED) || ip.parts.slice(0, 6).every((part) => part === 0)) return low;
  return embeddedIPv4(ip);
}

/** Names that only ever mean this machine or its private network. */
const LOCAL_NAMES = ['localhost', 'metadata.google.internal'];
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal'];

/**
 * Why a URL can never be a webhook destination, checked when one is added (before any DNS)
 * and again before each attempt; null when acceptable. Without `allowPrivate`: https only, and
 * a literal IP or a local name is judged here, since no DNS answer will be asked for it.
 * Reasons never repeat the URL: its path or query may carry the integrator's token.
 */
export function refusedUrl(url: string, allowPrivate: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) return `only ${schemes.join(' or ')} URLs are accepted`;
  if (parsed.username || parsed.password) return 'credentials in the URL (user:pass@) are not accepted';
  // An empty fragment (`https://a/#`) leaves `hash` empty but keeps the `#` in href.
  if (parsed.hash || parsed.href.includes('#')) return 'a URL fragment (#...) is not accepted';
  const host = hostOf(parsed);
  if (!host) return 'the URL has no host';
  // Private destinations allowed (development): still never a cloud metadata endpoint.
  if (allowPrivate) {
    const bare = host.replace(/\.+$/, '');
    if (METADATA_NAMES.includes(bare)) return `${bare} is a cloud metadata name`;
    return isIP(host) ? metadataAddress(host) : null;
  }
  if (isIP(host)) return refusedAddress(host);
  // WHATWG URL parsing lowercases names and turns numeric forms (0x7f.1, 2130706433) into dotted IPv4.
  const name = host.replace(/\.+$/, '');
  if (LOCAL_NAMES.includes(name) || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) return `${name} is a local name`;
  return null;
}

/** What a refused address is, by ipaddr.js's range name. Only 'unicast' is ever allowed. */
const RANGE_NAMES: Record<string, string> = {
  private: 'a private address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  carrierGradeNat: 'a carrier-grade NAT address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
  teredo: 'a Teredo tunnel address',
  rfc6145: 'an IPv4-translated address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
};

/** 2000::/3, the only IPv6 space allocated as global unicast (ipaddr.js calls everything it has no name for 'unicast'). */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];
/** The well-known NAT64 prefix; 64:ff9b:1::/48 (RFC 8215, also 'rfc6052') is for local use and refused whole. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];

/**
 * Why an IP address may not be connected to; null when public. Forms that carry an IPv4 address
 * are judged by it: IPv4-mapped (`::ffff:10.0.0.1`, what ipaddr.process unwraps), NAT64
 * (64:ff9b::/96, which an IPv6-only network with DNS64 legitimately answers for public IPv4
 * hosts) and 6to4 (2002::/16). The deprecated IPv4-compatible ::/96 and Teredo (2001::/32,
 * whose client address is obfuscated and which tunnels anywhere) are refused outright, as is
 * every other special-purpose range and anything outside 2000::/3.
 */
export function refusedAddress(address: string): string | null {
  const malformed = notAnAddress(address);
  if (malformed) return malformed;
  // ipaddr.js reads ::a.b.c.d (IPv4-compatible, deprecated) as ::ffff:a.b.c.d: refuse it first.
  if (ipv4Compatible(address)) return `${address} is an IPv4-compatible address (deprecated)`;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') {
    const kind = forbiddenKind(ip.range());
    return kind && `${address} is ${kind}`;
  }
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    const kind = forbiddenKind(embedded.range());
    return kind && `${address} embeds ${embedded.toString()}, ${kind}`;
  }
  const range = v6.range();
  if (range === 'unicast' && v6.parts.slice(0, 6).every((part) => part === 0))
    return `${address} is an IPv4-compatible address (deprecated)`;
  const kind = forbiddenKind(range);
  if (kind) return `${address} is ${kind}`;
  if (!v6.match(GLOBAL_UNICAST)) return `${address} is outside the global unicast space (2000::/3)`;
  return null;
}

/** ::a.b.c.d or ::xxxx:yyyy (not ::, ::1 or ::ffff:…), judged from the text: ipaddr.js parses the dotted form as IPv4-mapped. */
function ipv4Compatible(address: string): boolean {
  if (!address.includes(':')) return false;
  const dotted = /^(.*:)\d+\.\d+\.\d+\.\d+$/.exec(address);
  const parts = (ipaddr.parse(dotted ? `${dotted[1]}0:0` : address) as ipaddr.IPv6).parts;
  return parts.slice(0, 6).every((part) => part === 0) && (dotted !== null || parts[6] !== 0);
}

/** Only the plain textual forms a resolver gives: no zone index (fe80::1%eth0), no 0x7f.1 or 2130706433. */
function notAnAddress(address: string): string | null {
  return isIP(address) && !address.includes('%') ? null : `${address.slice(0, 60)} is not an IP address`;
}

/** What an ipaddr.js range is, phrased; null for 'unicast', the only one allowed. */
function forbiddenKind(range: string): string | null {
  return range === 'unicast' ? null : (RANGE_NAMES[range] ?? `a special-purpose address (${range})`);
}

/** The IPv4 address a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address stands for. */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const word = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (ip.match(NAT64)) return word(ip.parts[6], ip.parts[7]);
  if (ip.range() === '6to4') return word(ip.parts[1], ip.parts[2]);
  return null;
}

/** The URL's host as an address or name: IPv6 literals lose their brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

interface Destination {
  address: string;
  family: 4 | 6;
}

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
  private readonly resolve: NonNullable<TransportOptions['resolve']>;
  private closed = false;

  constructor(private readonly options: TransportOptions) {
    // `timeout` closes connections idle in the pool after 4 s, before common servers' keep-alive
    // timeouts (Node's 5 s) close them while a request is being written.
    const agentOptions = { keepAlive: true, maxSockets: 64, timeout: 4_000 };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
    this.resolve = options.resolve ?? resolveAll;
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
    const refusal = refusedUrl(request.url, this.options.allowPrivate);
    if (refusal) throw new AttemptFailure(`refused destination: ${refusal}`);
    const url = new URL(request.url);
    const destination = await beforeDeadline(this.destination(hostOf(url)), deadline, this.timedOut());
    return this.exchange(url, destination, request, deadline, latency);
  }

  /** The address to connect to: the host's first, after every one was checked. */
  private async destination(host: string): Promise<Destination> {
    const literal = isIP(host);
    let answers: Array<{ address: string; family: number }>;
    if (literal) answers = [{ address: host, family: literal }];
    else {
      try {
        answers = await this.resolve(host);
      } catch (error) {
        throw new AttemptFailure(dnsReasonOf(error));
      }
    }
    if (answers.length === 0) throw new AttemptFailure('host has no address');
    for (const { address } of answers) {
      const refusal = this.options.allowPrivate ? (notAnAddress(address) ?? metadataAddress(address)) : refusedAddress(address);
      if (refusal) throw new AttemptFailure(`refused destination: ${refusal}`);
    }
    // Canonical form, IPv4-mapped unwrapped: the address connected to is the one judged.
    const ip = ipaddr.process(answers[0].address);
    return ip.kind() === 'ipv4' ? { address: ip.toString(), family: 4 } : { address: ip.toString(), family: 6 };
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

async function resolveAll(hostname: string): Promise<Destination[]> {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
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

const SOCKET_REASONS: Record<string, string> = {
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

/** A short reason from an error's code only: messages may quote hosts, headers or values. */
function reasonOf(error: unknown): string {
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

function dnsReasonOf(error: unknown): string {
  const code = codeOf(error);
  if (code === 'ENOTFOUND') return 'host not found';
  if (code === 'ENODATA') return 'host has no address';
  return code ? `DNS lookup failed (${code})` : 'DNS lookup failed';
}

function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,60}$/.test(code) ? code : null;
}
