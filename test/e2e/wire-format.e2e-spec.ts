import { get as httpGet, IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { BROTLI_WINDOW_BITS, COMPRESSION_THRESHOLD_BYTES } from '../../src/common/http/compression.middleware';
import { ALL_SCOPES } from '../../src/contract/scopes';
import { RecordingsFactory, UserRef } from '../../src/seeding/recordings.factory';
import { createClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import { OpenApiResponses } from '../support/openapi-responses';
import { createTestApp, ownerDataSource } from '../support/test-app';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as it crossed the wire. */
  wire: Buffer;
  /** The body decoded by its Content-Encoding. */
  text: string;
}

/** Headers that differ between two answers of the same request whatever their encoding. */
const PER_ANSWER = [
  'date',
  'x-request-id',
  'content-length',
  'transfer-encoding',
  'content-encoding',
  'ratelimit',
  'connection',
  'keep-alive',
];

/**
 * The wire: JSON rendered by PostgreSQL and passed through (meetings and calls), and
 * compression by Accept-Encoding. Requests go over a real socket, so the bytes are the ones a
 * client receives, not what a test client decoded.
 */
describe('wire format', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let base: string;
  let token: string;
  let clientId: string;
  let clientSecret: string;
  let factory: RecordingsFactory;
  let owner: UserRef;
  let openapi: OpenApiResponses;

  beforeAll(async () => {
    [db, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const company = await createCompany(db);
    factory = new RecordingsFactory(db, company.id);
    owner = await factory.user({ email: `wire.${company.publicId}@example.com` });
    const http = request(app.getHttpServer());
    // Every scope: the token answer then passes the compression threshold like a page would.
    const client = await createClient(db, company, { scopes: [...ALL_SCOPES] });
    [clientId, clientSecret] = [client.clientId, client.clientSecret];
    token = await tokenFor(http, client);
    openapi = await OpenApiResponses.load(http);
    for (let i = 0; i < 30; i++) await factory.recording('meeting', { owner });
    await factory.bulk('meeting', 90, owner, new Date('2026-01-01T00:00:00Z'));
    // Titles that compress poorly: a page of 100 is written in several parts, and its compressed
    // body outgrows the socket's buffer as real pages do (a corked response then never drained).
    await db.query(
      `UPDATE recordings r SET title = (SELECT string_agg(md5(random()::text || g || r.id), '') FROM generate_series(1, 40) g)
       WHERE r.company_id = $1`,
      [company.id],
    );
  });
  afterAll(() => Promise.all([db.destroy(), app.close()]));

  function raw(path: string, acceptEncoding?: string): Promise<Raw> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
    return new Promise((resolve, reject) => {
      httpGet(`${base}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const wire = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          const decoded = encoding === 'gzip' ? gunzipSync(wire) : encoding === 'br' ? brotliDecompressSync(wire) : wire;
          resolve({ status: res.statusCode!, headers: res.headers, wire, text: decoded.toString('utf8') });
        });
      }).on('error', reject);
    });
  }

  const withoutRequestId = (text: string) => {
    const body = JSON.parse(text) as { request_id?: string; pagination?: { next_cursor: string | null } };
    delete body.request_id;
    if (body.pagination) body.pagination.next_cursor = body.pagination.next_cursor && 'sealed'; // sealed afresh on every answer
    return body;
  };
  const stableHeaders = (h: IncomingHttpHeaders) =>
    Object.keys(h)
      .filter((k) => !PER_ANSWER.includes(k))
      .sort()
      .map((k) => [k, h[k]]);

  describe('compression', () => {
    it.each(['gzip', 'br'])('answers a page in %s when asked, the same JSON and headers, a fraction of the bytes', async (encoding) => {
      const plain = await raw('/v1/meetings?limit=100');
      const packed = await raw('/v1/meetings?limit=100', encoding);
      expect([plain.status, packed.status]).toEqual([200, 200]);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(withoutRequestId(packed.text)).toEqual(withoutRequestId(plain.text));
      expect(JSON.parse(packed.text).request_id).toBe(packed.headers['x-request-id']);
      expect(packed.wire.length).toBeLessThan(plain.wire.length * 0.6); // random hex titles: about half
      // Every header but the per-answer ones is the same, Vary and the policy headers included.
      expect(stableHeaders(packed.headers)).toEqual(stableHeaders(plain.headers));
      for (const h of [plain.headers, packed.headers]) {
        expect(h.vary).toMatch(/\bAccept-Encoding\b/);
        expect(h['cache-control']).toBe('no-store');
        expect(h['ratelimit-policy']).toBeDefined();
        expect(h.ratelimit).toBeDefined();
        expect(h['content-type']).toBe('application/json; charset=utf-8');
      }
    });

    it('prefers br when both are acceptable, and honours q=0', async () => {
      expect((await raw('/v1/meetings?limit=100', 'gzip, deflate, br')).headers['content-encoding']).toBe('br');
      expect((await raw('/v1/meetings?limit=100', 'gzip;q=0, identity')).headers['content-encoding']).toBeUndefined();
    });

    it(`writes br with a ${2 ** BROTLI_WINDOW_BITS / 1024} KiB window, never the 4 MiB default whose buffers outlive the streams`, async () => {
      const packed = await raw('/v1/meetings?limit=100', 'br');
      expect(packed.headers['content-encoding']).toBe('br');
      // The stream header (RFC 7932, 9.1): bit 0 set, bits 1-3 = n, a window of 2^(17 + n) bytes.
      const first = packed.wire[0];
      expect(first & 1).toBe(1);
      expect(17 + ((first >> 1) & 7)).toBe(BROTLI_WINDOW_BITS);
      expect(BROTLI_WINDOW_BITS).toBeLessThan(22);
    });

    it('never compresses the token endpoint (a fresh token beside requester-chosen text is what BREACH measures)', async () => {
      const answer = await new Promise<{ headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
        const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString();
        const req = httpRequest(
          `${base}/oauth/token`,
          { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-encoding': 'gzip, br' } },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString('utf8')));
            res.on('end', () => resolve({ headers: res.headers, text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(JSON.parse(answer.text).access_token).toEqual(expect.any(String));
      expect(answer.text.length).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES); // big enough to be compressed anywhere else
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers.vary).toMatch(/\bAccept-Encoding\b/);
    });

    it(`leaves answers under ${COMPRESSION_THRESHOLD_BYTES} bytes alone`, async () => {
      const missing = await raw('/v1/meetings/mtg_0000000000000000000000', 'gzip');
      expect(missing.status).toBe(404);
      expect(missing.wire.length).toBeLessThan(COMPRESSION_THRESHOLD_BYTES);
      expect(missing.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(missing.text).error.code).toBe('RESOURCE_NOT_FOUND');
    });
  });

  describe('JSON rendered by PostgreSQL', () => {
    it('escapes every character a stored string may hold, and keeps only the documented participant fields', async () => {
      const title = 'Aspas " barra \\ nova\nlinha\ttab \u0001 controle ção 🎉 </script>';
      const meeting = await factory.recording('meeting', { owner, title });
      await db.query('UPDATE recordings SET participants = $2 WHERE public_id = $1', [
        meeting.publicId,
        JSON.stringify([
          { display_name: 'Só nome', email: 7, phone: null, kind: null, internal_note: 'never shown' },
          { email: "o'brien+vendas@example.com", kind: 'external' },
          { phone: '+55 11 5555-0000' },
        ]),
      ]);
      const res = await raw(`/v1/meetings/${meeting.publicId}`);
      expect(res.status).toBe(200);
      const body = JSON.parse(res.text) as { data: { title: string; participants: unknown[] } };
      expect(body.data.title).toBe(title);
      expect(body.data.participants).toEqual([
        { display_name: 'Só nome', kind: 'external' },
        { email: "o'brien+vendas@example.com", kind: 'external' },
        { phone: '+55 11 5555-0000', kind: 'external' },
      ]);
      // Compact, as JSON.stringify writes it: no space PostgreSQL's json_build_object would add.
      expect(res.text).toBe(JSON.stringify(body));
      expect(openapi.errors('/v1/meetings/{meeting_id}', { status: res.status, headers: res.headers, body })).toEqual([]);
    });
  });
});
