import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { AttemptResult, DEFAULT_TRANSPORT, TransportOptions, WebhookRequest, WebhookTransport } from '../../src/webhooks/webhook-transport';

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A local endpoint on an ephemeral port that records every request and connection it sees. */
interface Receiver {
  port: number;
  requests: Received[];
  /** Every connection accepted, open or closed. */
  sockets: Socket[];
  url(path?: string): string;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function receiver(handler: Handler, server: http.Server = http.createServer()): Promise<Receiver> {
  const requests: Received[] = [];
  const sockets: Socket[] = [];
  server.on('connection', (socket: Socket) => sockets.push(socket));
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    requests,
    sockets,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const answer =
  (status: number, headers: http.OutgoingHttpHeaders = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end('{"ok":true}');
  };

/** Resolves when the server side of a connection is closed (the transport destroyed it). */
const closed = (socket: Socket) =>
  socket.destroyed ? Promise.resolve() : new Promise<void>((resolve) => socket.once('close', () => resolve()));

const fixed =
  (...addresses: string[]): NonNullable<TransportOptions['resolve']> =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

const post = (url: string, headers: Record<string, string> = {}, body = '{"event":"test"}'): WebhookRequest => ({ url, headers, body });

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A transport closed after the test, with the default options overridden by `options`. */
function transport(options: Partial<TransportOptions>): WebhookTransport {
  const t = new WebhookTransport({ ...DEFAULT_TRANSPORT, allowPrivate: false, ...options });
  cleanup.push(() => t.close());
  return t;
}

async function listening(handler: Handler, server?: http.Server): Promise<Receiver> {
  const r = await receiver(handler, server);
  cleanup.push(() => r.close());
  return r;
}

describe('WebhookTransport without allowPrivate', () => {
  let connect: jest.SpiedFunction<Socket['connect']>;
  beforeEach(() => (connect = jest.spyOn(Socket.prototype, 'connect')));
  afterEach(() => connect.mockRestore());

  it('refuses a loopback URL, and the server there sees nothing', async () => {
    const r = await listening(answer(200));
    const resolve = jest.fn(fixed('8.8.8.8'));
    const t = transport({ resolve });
    expect(await t.send(post(r.url()))).toMatchObject({
      delivered: false,
      status: null,
      error: 'refused destination: only https: URLs are accepted',
    });
    expect(await t.send(post(`https://127.0.0.1:${r.port}/hook`))).toMatchObject({
      delivered: false,
      status: null,
      error: 'refused destination: 127.0.0.1 is a loopback address',
    });
    expect(await t.send(post(`https://[::ffff:127.0.0.1]:${r.port}/hook`))).toMatchObject({ error: expect.stringContaining('loopback') });
    expect(await t.send(post(`https://localhost:${r.port}/hook`))).toMatchObject({
      error: 'refused destination: localhost is a local name',
    });
    expect(r.requests).toEqual([]);
    expect(r.sockets).toEqual([]);
    expect(resolve).not.toHaveBeenCalled();
    expect(connect).not.toHaveBeenCalled();
  });

  it('refuses the metadata address without resolving or connecting', async () => {
    const resolve = jest.fn(fixed('8.8.8.8'));
    const t = transport({ resolve });
    expect(await t.send(post('http://169.254.169.254/latest/meta-data/'))).toMatchObject({
      delivered: false,
      error: expect.stringContaining('refused destination'),
    });
    expect(await t.send(post('https://169.254.169.254/latest/meta-data/'))).toMatchObject({
      delivered: false,
      status: null,
      error: 'refused destination: 169.254.169.254 is a link-local address',
    });
    expect(await t.send(post('https://metadata.google.internal/computeMetadata/v1/'))).toMatchObject({
      error: expect.stringContaining('local name'),
    });
    expect(resolve).not.toHaveBeenCalled();
    expect(connect).not.toHaveBeenCalled();
  });

  it.each([
    [['10.0.0.5'], 'refused destination: 10.0.0.5 is a private address'],
    [['93.184.216.34', '127.0.0.1'], 'refused destination: 127.0.0.1 is a loopback address'],
    [['2606:4700:4700::1111', 'fd00:ec2::254'], 'refused destination: fd00:ec2::254 is a unique-local address'],
    [['::ffff:169.254.169.254'], 'refused destination: ::ffff:169.254.169.254 is a link-local address'],
    [['64:ff9b::a00:1'], 'refused destination: 64:ff9b::a00:1 embeds 10.0.0.1, a private address'],
  ])('refuses a hostname resolving to %j if any address is forbidden, without connecting', async (addresses, error) => {
    const resolve = jest.fn(fixed(...addresses));
    const result = await transport({ resolve }).send(post('https://hooks.example.com/hook'));
    expect(result).toMatchObject({ delivered: false, status: null, error });
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(resolve).toHaveBeenCalledWith('hooks.example.com');
    expect(connect).not.toHaveBeenCalled();
  });
});

describe('WebhookTransport with allowPrivate', () => {
  const local = (options: Partial<TransportOptions> = {}) => transport({ allowPrivate: true, ...options });

  it('delivers to a 2xx receiver: status, headers and a byte-identical body', async () => {
    const r = await listening(answer(200));
    const body = JSON.stringify({ type: 'conversation.updated', text: 'héllo ✓ 😀', nested: { n: 1 } });
    const result = await local().send(post(r.url('/hook?x=1'), { 'x-webhook-signature': 'v1=abc', 'X-Webhook-Id': 'evt_1' }, body));
    expect(result).toEqual({ delivered: true, status: 200, error: null, latencyMs: expect.any(Number) });
    expect(Number.isInteger(result.latencyMs)).toBe(true);
    expect(r.requests).toHaveLength(1);
    const [received] = r.requests;
    expect(received.method).toBe('POST');
    expect(received.url).toBe('/hook?x=1');
    expect(received.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(received.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'ConversationReadAPI-Webhooks/1',
      'x-webhook-signature': 'v1=abc',
      'x-webhook-id': 'evt_1',
      host: `127.0.0.1:${r.port}`,
    });
    expect(received.headers['transfer-encoding']).toBeUndefined();
  });

  it("keeps the caller's content-type and writes its own framing", async () => {
    const r = await listening(answer(204));
    const result = await local().send(
      post(r.url(), { 'Content-Type': 'application/cloudevents+json', 'Content-Length': '1', Host: 'evil.example' }, '{"a":1}'),
    );
    expect(result).toMatchObject({ delivered: true, status: 204 });
    expect(r.requests[0].headers).toMatchObject({
      'content-type': 'application/cloudevents+json',
      'content-length': '7',
      host: `127.0.0.1:${r.port}`,
    });
    expect(r.requests[0].body.toString()).toBe('{"a":1}');
  });

  it('keeps the connection alive between attempts; close() destroys it', async () => {
    const r = await listening(answer(200));
    const t = local();
    for (let i = 0; i < 3; i++) expect(await t.send(post(r.url()))).toMatchObject({ delivered: true });
    expect(r.requests).toHaveLength(3);
    expect(r.sockets).toHaveLength(1);
    t.close();
    await closed(r.sockets[0]);
  });

  it('reports a 500 as not delivered', async () => {
    const r = await listening(answer(500));
    expect(await local().send(post(r.url()))).toEqual({ delivered: false, status: 500, error: 'HTTP 500', latencyMs: expect.any(Number) });
  });

  it('does not follow a redirect', async () => {
    const target = await listening(answer(200));
    const r = await listening(answer(302, { location: target.url('/elsewhere') }));
    expect(await local().send(post(r.url()))).toMatchObject({ delivered: false, status: 302, error: 'redirect not followed (HTTP 302)' });
    expect(r.requests).toHaveLength(1);
    expect(target.requests).toEqual([]);
    expect(target.sockets).toEqual([]);
  });

  it('gives up on a server that never answers after the total timeout, and destroys the connection', async () => {
    const r = await listening(() => {});
    const result = await local({ connectTimeoutMs: 200, totalTimeoutMs: 300 }).send(post(r.url()));
    expect(result).toMatchObject({ delivered: false, status: null, error: 'timed out after 300 ms' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(2000);
    expect(r.requests).toHaveLength(1);
    await closed(r.sockets[0]);
  });

  it('returns promptly on an endless body after a 200, reading at most the cap, and destroys the connection', async () => {
    let sent = 0;
    const r = await listening((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16_384, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const started = Date.now();
    const result = await local({ totalTimeoutMs: 10_000, maxResponseBytes: 65_536 }).send(post(r.url()));
    expect(result).toMatchObject({ delivered: true, status: 200, error: null });
    expect(Date.now() - started).toBeLessThan(3000);
    await closed(r.sockets[0]);
    // The server's writes stop at what the socket buffers took: nowhere near an endless body.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it('reports a 2xx whose body trickles past the total timeout as delivered, and destroys the connection', async () => {
    const r = await listening((_req, res) => {
      res.writeHead(200);
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('.')), 20);
      res.on('close', () => clearInterval(drip));
    });
    const result = await local({ totalTimeoutMs: 300 }).send(post(r.url()));
    expect(result).toMatchObject({ delivered: true, status: 200, error: null });
    expect(result.latencyMs).toBeLessThan(300);
    await closed(r.sockets[0]);
  });

  it('reports a closed port as connection refused', async () => {
    const r = await receiver(answer(200));
    await r.close();
    expect(await local().send(post(r.url()))).toMatchObject({ delivered: false, status: null, error: 'connection refused' });
  });

  // No test connects to an address off this machine (a private-range "unroutable" address is
  // still someone's network): the connect timeout is proved on loopback, by a server that accepts
  // the TCP connection and never completes the TLS handshake, below.

  it('counts the TLS handshake in the connect timeout: a server that accepts and never speaks', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const sockets: Socket[] = [];
    silent.on('connection', (socket: Socket) => {
      sockets.push(socket);
      socket.resume(); // read (and drop) what comes, so the client's close is seen
    });
    cleanup.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const { port } = silent.address() as AddressInfo;
    const started = Date.now();
    const result = await local({ connectTimeoutMs: 200, totalTimeoutMs: 5000, resolve: fixed('127.0.0.1') }).send(
      post(`https://silent.test:${port}/hook`),
    );
    expect(result).toMatchObject({ delivered: false, status: null, error: 'connect timed out after 200 ms' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(sockets).toHaveLength(1);
    await closed(sockets[0]);
  });

  it('resolves once and connects to the address it checked (no DNS rebinding)', async () => {
    const r = await listening(answer(200));
    let calls = 0;
    const resolve = (hostname: string) => {
      calls++;
      expect(hostname).toBe('rebind.test');
      return fixed(calls === 1 ? '127.0.0.1' : '10.255.255.1')(hostname);
    };
    const result = await local({ connectTimeoutMs: 2000, resolve }).send(post(`http://rebind.test:${r.port}/hook`));
    expect(result).toMatchObject({ delivered: true, status: 200 });
    expect(calls).toBe(1);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0].headers.host).toBe(`rebind.test:${r.port}`);
  });

  it('never throws', async () => {
    const r = await listening(answer(200));
    const t = local({ totalTimeoutMs: 1000 });
    const results: AttemptResult[] = await Promise.all([
      t.send(post(r.url(), { 'x-bad': 'a\r\nb' })),
      t.send(post(r.url(), { 'bad header': 'x' })),
      t.send(post('http://[::1')),
      t.send(post('http://throws.test/', {}, '{}')),
      local({ resolve: () => Promise.reject(new Error('boom')) }).send(post('http://dns.test/')),
      local({ resolve: fixed('not-an-address') }).send(post('http://junk.test/')),
    ]);
    expect(results.map((x) => x.error)).toEqual([
      'invalid request header',
      'invalid request header',
      'refused destination: not a valid URL',
      expect.any(String),
      'DNS lookup failed',
      'refused destination: not-an-address is not an IP address',
    ]);
    expect(results.every((x) => !x.delivered && x.status === null)).toBe(true);
    expect(r.requests).toEqual([]);
  });
});

/** A self-signed certificate for hooks.example.test, made by openssl when present. */
function selfSigned(): { key: string; cert: string } | null {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=hooks.example.test',
      ].concat(['-addext', 'subjectAltName=DNS:hooks.example.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]),
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tls = selfSigned();
(tls ? describe : describe.skip)('WebhookTransport over TLS', () => {
  it('sends the hostname as SNI to the pinned address and verifies the certificate', async () => {
    const names: string[] = [];
    const context = createSecureContext(tls!);
    const server = https.createServer({
      ...tls!,
      SNICallback: (name, callback) => {
        names.push(name);
        callback(null, context);
      },
    });
    const r = await listening(answer(200), server);
    const result = await transport({ allowPrivate: true, resolve: fixed('127.0.0.1') }).send(
      post(`https://hooks.example.test:${r.port}/hook`),
    );
    // Not a public CA: refused by the client's verification, after the server saw the name.
    expect(result).toMatchObject({ delivered: false, status: null, error: expect.stringMatching(/^TLS failed \(/) });
    expect(names).toEqual(['hooks.example.test']);
    expect(r.requests).toEqual([]);
  });
});
