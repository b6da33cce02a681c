import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { OpenApiResponses } from './openapi-responses';

/** What the answers of this test file broke of the document (checked after the file's tests: contract-check.ts). */
export const contractViolations: string[] = [];

/** Paths that are not part of the API: probes, the document itself, the human docs, test-only routes. */
const OUTSIDE_THE_API = /^\/(health|openapi\.json|docs|v1\/_probe)(\/|$|\?)/;

/**
 * Checks every answer `app` gives, whichever test asked and however (supertest, raw sockets,
 * the fuzzer), against the app's own OpenAPI document: status documented, body and headers
 * valid. A listener placed before Express sees each request and the bytes written back.
 */
export async function recordContract(app: NestExpressApplication): Promise<void> {
  const server = app.getHttpServer() as Server;
  const { body: document } = await request(server).get('/openapi.json').expect(200);
  const openapi = await OpenApiResponses.of(document);
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const method = (req.method ?? 'GET').toLowerCase();
    const path = (req.url ?? '/').split('?')[0];
    if (OUTSIDE_THE_API.test(path)) return;
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    const { write, end } = res;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      keep(chunk);
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      keep(chunk);
      return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
    res.on('finish', () => {
      const wire = Buffer.concat(chunks);
      const encoding = res.getHeader('content-encoding');
      const text = (encoding === 'gzip' ? gunzipSync(wire) : encoding === 'br' ? brotliDecompressSync(wire) : wire).toString('utf8');
      let body: unknown;
      if (method !== 'head') {
        // JSON is read as JSON (a body that is not is a violation); any other format stays text.
        const type = res.getHeader('content-type');
        try {
          body = type === undefined || /^application\/json\b/i.test(String(type)) ? JSON.parse(text) : text;
        } catch {
          body = text;
        }
      }
      const answer = { status: res.statusCode, body, headers: res.getHeaders() as Record<string, unknown> };
      const template = openapi.templateOf(path);
      const problems = template
        ? openapi.errors(template, answer, method === 'head' ? 'get' : method)
        : openapi.unknownPathErrors(path, answer);
      for (const problem of problems) contractViolations.push(`${req.method} ${req.url?.slice(0, 200)} → ${res.statusCode}: ${problem}`);
    });
  });
}
