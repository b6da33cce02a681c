import { execFileSync } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { createClient } from '../support/credentials';
import { createCompany } from '../support/factories';
import { explainSkip, RedisServer, redisMode, startRedisServer } from '../support/redis';
import { builtEntry } from '../support/process-build';
import { processToken, ServiceProcess, startServiceProcess } from '../support/service-process';
import { eventually, ownerDataSource } from '../support/test-app';

/** A span as OTLP/HTTP JSON carries it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
}
const SERVER = 2;
/** The database a span talks to, under the semantic conventions' old name or their new one. */
const system = (s: OtlpSpan) => attr(s, 'db.system') ?? attr(s, 'db.system.name') ?? '';
function attr(s: OtlpSpan, key: string): string | undefined {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? String(v.intValue) : undefined);
}

/**
 * Traces with OTEL_EXPORTER_OTLP_ENDPOINT: the service in its own process (the instrumentations
 * patch modules as they load, which a test module registry would hide), exporting to a
 * collector played by this test.
 */
describe('traces (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let db: DataSource;
  let collector: Server;
  let redis: RedisServer | undefined;
  let service: ServiceProcess;
  const spans: OtlpSpan[] = [];
  let token: string;

  beforeAll(async () => {
    db = await ownerDataSource();
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url === '/v1/traces') {
          const payload = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
          for (const r of payload.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    if (redisMode() === 'server') redis = await startRedisServer();
    else explainSkip('the Redis span of the tracing test (the HTTP and PostgreSQL spans are still checked)');
    service = await startServiceProcess({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      LOG_LEVEL: 'warn',
      ...(redis ? { REDIS_URL: redis.url } : {}),
    });
    const company = await createCompany(db);
    const factory = new RecordingsFactory(db, company.id);
    await factory.recording('meeting', { owner: await factory.user() });
    token = await processToken(service.base, await createClient(db, company));
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await redis?.stop();
    collector.close();
    await db.destroy();
  });

  it('exports a server span per request with its request id and route, and the PostgreSQL and Redis spans under it', async () => {
    const res = await fetch(`${service.base}/v1/meetings?limit=5&owner_email=${encodeURIComponent('secret.person@example.com')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    await eventually(async () => spans.some((s) => attr(s, 'http.request.id') === requestId), 45_000).catch(() => {
      throw new Error(
        `no span with ${requestId}; received: ${JSON.stringify(spans.map((s) => [s.name, s.kind, s.attributes.map((a) => a.key)]))}\n${service.output()}`,
      );
    });
    const server = spans.find((s) => attr(s, 'http.request.id') === requestId)!;
    expect(server.kind).toBe(SERVER);
    expect(attr(server, 'http.route')).toBe('/v1/meetings');
    // The trace's other spans: statements and (with Redis) the rate-limit script.
    await eventually(async () => spans.some((s) => s.traceId === server.traceId && /postgres/i.test(system(s))), 45_000).catch(() => {
      throw new Error(
        `no PostgreSQL span in ${server.traceId}; received: ${JSON.stringify(spans.map((s) => [s.traceId === server.traceId, s.name, s.attributes.map((a) => a.key)]))}`,
      );
    });
    const trace = spans.filter((s) => s.traceId === server.traceId);
    expect(trace.filter((s) => /postgres/i.test(system(s))).length).toBeGreaterThanOrEqual(2);
    if (redis) {
      await eventually(async () => spans.some((s) => s.traceId === server.traceId && system(s) === 'redis'), 45_000).catch(() => {
        throw new Error(
          `no Redis span in the trace; received: ${JSON.stringify(spans.map((s) => [s.traceId === server.traceId, s.name, system(s)]))}`,
        );
      });
    }
    // Filter values stay out of the traces, as out of the logs.
    const text = JSON.stringify(spans);
    expect(text).not.toContain('secret.person');
    expect(text).not.toContain('owner_email=');
  });

  it('loads no OpenTelemetry SDK without the endpoint', () => {
    const loaded = execFileSync(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(builtEntry('src/tracing.ts'))}); console.log(Object.keys(require.cache).filter((k) => k.includes('@opentelemetry')).length)`,
      ],
      { env: { PATH: process.env.PATH }, encoding: 'utf8' },
    );
    expect(Number(loaded.trim())).toBe(0);
  });
});
