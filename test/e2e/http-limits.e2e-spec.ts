import { NestExpressApplication } from '@nestjs/platform-express';
import { AddressInfo, Socket } from 'node:net';
import { MAX_HEADER_BYTES } from '../../src/common/http/hardened-express-adapter';
import { createTestApp, sleep } from '../support/test-app';

/** A raw HTTP/1.1 exchange: what the server wrote back and when it closed the socket. */
class RawClient {
  readonly socket = new Socket();
  received = '';
  closedAt: number | null = null;

  constructor(port: number) {
    this.socket.on('data', (chunk) => (this.received += chunk.toString('latin1')));
    this.socket.on('close', () => (this.closedAt = Date.now()));
    this.socket.on('error', () => undefined);
    this.socket.connect(port, '127.0.0.1');
  }

  async send(text: string): Promise<void> {
    if (this.socket.destroyed) return;
    await new Promise<void>((resolve) => this.socket.write(text, 'latin1', () => resolve()));
  }

  /** Resolves with the status line once a whole answer head has arrived, or null when the socket closes first. */
  async status(timeoutMs = 5000): Promise<number | null> {
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(this.received);
      if (match && this.received.includes('\r\n\r\n')) return Number(match[1]);
      if (this.closedAt) return match ? Number(match[1]) : null;
      await sleep(20);
    }
    throw new Error('no answer');
  }
}

describe('slow and oversized clients', () => {
  const HEADERS_TIMEOUT_MS = 1000;
  let app: NestExpressApplication;
  let port: number;
  const raw = () => new RawClient(port);
  const get = async (target: string, headers = '') => {
    const c = raw();
    await c.send(`GET ${target} HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`);
    const status = await c.status();
    c.socket.destroy();
    return { status, body: c.received.slice(c.received.indexOf('\r\n\r\n') + 4) };
  };

  beforeAll(async () => {
    app = await createTestApp({ env: { HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), HTTP_REQUEST_TIMEOUT_MS: '3000' } });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  it('sets the server limits deliberately', () => {
    const server = app.getHttpServer();
    expect({ headers: server.headersTimeout, request: server.requestTimeout, keepAlive: server.keepAliveTimeout }).toEqual({
      headers: HEADERS_TIMEOUT_MS,
      request: 3000,
      keepAlive: 65_000,
    });
  });

  it('cuts a client that never finishes its headers, while another is served at once', async () => {
    const slow = raw();
    const opened = Date.now();
    await slow.send('GET /health/live HTTP/1.1\r\nHost: localhost\r\n');
    let dribbling = true;
    const dribble = (async () => {
      for (let i = 0; dribbling && !slow.closedAt; i++) {
        await slow.send(`X-Slow-${i}: a\r\n`);
        await sleep(200);
      }
    })();
    await sleep(300);
    const started = Date.now();
    const other = await get('/health/live');
    expect(other.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(500);
    const status = await slow.status(HEADERS_TIMEOUT_MS + 3000);
    dribbling = false;
    await dribble;
    expect(slow.closedAt).not.toBeNull();
    // Cut within the headers timeout plus one check of Node's timer (1 s here), with room for a busy machine.
    expect(slow.closedAt! - opened).toBeLessThan(HEADERS_TIMEOUT_MS + 1000 + 1000);
    expect([null, 408]).toContain(status);
  });

  it('answers a request head over the limit (a long header or a long URL) with 431, never 500', async () => {
    expect((await get('/health/live', `X-Big: ${'a'.repeat(MAX_HEADER_BYTES)}\r\n`)).status).toBe(431);
    expect((await get(`/v1/meetings?owner_email=${'a'.repeat(MAX_HEADER_BYTES)}`)).status).toBe(431);
  });

  it('answers long URLs within the limit with the documented 4xx envelope', async () => {
    const longQuery = await get(`/v1/meetings?${'x'.repeat(12_000)}=1`, 'Authorization: Bearer x\r\n');
    expect(longQuery.status).toBe(401);
    expect(JSON.parse(longQuery.body).error.code).toBe('INVALID_ACCESS_TOKEN');
    const longPath = await get(`/v1/${'p'.repeat(12_000)}`);
    expect(longPath.status).toBe(404);
    expect(JSON.parse(longPath.body).error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('answers a token request body over 8 KiB with 413 in the OAuth shape', async () => {
    const c = raw();
    const body = `grant_type=client_credentials&pad=${'a'.repeat(9000)}`;
    await c.send(
      `POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(await c.status()).toBe(413);
    await sleep(100);
    expect(JSON.parse(c.received.slice(c.received.indexOf('\r\n\r\n') + 4)).error).toBe('PAYLOAD_TOO_LARGE');
    c.socket.destroy();
  });
});
