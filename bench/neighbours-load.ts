/**
 * The noisy neighbours of `npm run bench:neighbours`, in a process of their own (so that their
 * clients never share an event loop with the measured company's): reads a MixPlan as JSON on
 * stdin, prints `started` once every client runs, and after `span` seconds one line of JSON, a
 * MixResult. The mix: slow exports over raw sockets, heavy `include` pages, heavy audit reads
 * and an unauthenticated flood, each closed-loop on its own connections.
 */
import { Socket } from 'node:net';
import { measure, Measurement } from './load';
import { RssSampler } from './service';

export interface MixPlan {
  baseUrl: string;
  servicePid: number;
  /** Seconds every part of the mix runs. */
  span: number;
  /** `rate`: requests a second over all connections, as many as the company's quotas allow (see neighbours.ts). */
  heavy: { token: string; path: string; connections: number; rate: number };
  audit: { token: string; path: string; connections: number; rate: number };
  flood: { connections: number };
  /** One token per slow export (an exporting company's, as many times as it runs exports). */
  exports: string[];
}

export interface MixResult {
  heavyPages: Measurement;
  auditReads: Measurement;
  flood: Measurement;
  exports: { opened: number; statuses: Record<string, number>; bytes_read: number };
}

/**
 * One export read slowly over a raw socket: ~100 bytes every `everyMs`, the rest left in the
 * kernel's buffers. Resolves at once with what it saw so far (read on `stop()`).
 */
function slowExport(baseUrl: string, token: string, everyMs: number) {
  const url = new URL(baseUrl);
  const socket = new Socket({ readableHighWaterMark: 1024 } as ConstructorParameters<typeof Socket>[0]);
  let head = '';
  let bytes = 0;
  let failed: string | undefined;
  socket.on('error', (error) => (failed = error.message));
  socket.connect(Number(url.port), url.hostname, () => {
    socket.pause();
    socket.write(
      `GET /v1/export?types=meeting&include=transcript,evaluation,answers HTTP/1.1\r\nHost: ${url.host}\r\n` +
        `Authorization: Bearer ${token}\r\nAccept-Encoding: identity\r\n\r\n`,
    );
  });
  const timer = setInterval(() => {
    const chunk = socket.read(100) as Buffer | null;
    if (!chunk) return;
    bytes += chunk.length;
    if (head.length < 64) head += chunk.toString('latin1');
  }, everyMs);
  return {
    status: () => failed ?? /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 'no answer yet',
    bytes: () => bytes,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

function nothingSent(name: string, title: string): Measurement {
  const zero = { p50: 0, p90: 0, p99: 0, max: 0 };
  return {
    name,
    title,
    requests: 0,
    requests_per_second: 0,
    latency_ms: zero,
    errors: 0,
    timeouts: 0,
    non_2xx: 0,
    status_codes: {},
    peak_rss_mb: 0,
  };
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const plan = JSON.parse(input) as MixPlan;
  const rss = new RssSampler(plan.servicePid);
  const settings = (connections: number, rate?: number) => ({ baseUrl: plan.baseUrl, connections, duration: plan.span, warmup: 0, rss, rate });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const exports = plan.exports.map((token) => slowExport(plan.baseUrl, token, 3000));
  // A part with no connections (left out with --without) is measured as nothing sent.
  const part = (connections: number, run: () => Promise<Measurement>, name: string, title: string): Promise<Measurement> =>
    connections > 0 ? run() : Promise.resolve(nothingSent(name, title));
  const running = Promise.all([
    part(
      plan.heavy.connections,
      () =>
        measure(
          {
            name: 'heavy_pages',
            title: 'GET /v1/meetings?limit=100&ids=…&include=transcript,evaluation,answers',
            path: plan.heavy.path,
            headers: { ...bearer(plan.heavy.token), 'accept-encoding': 'identity' },
          },
          settings(plan.heavy.connections, plan.heavy.rate),
        ),
      'heavy_pages',
      'heavy pages (left out)',
    ),
    part(
      plan.audit.connections,
      () =>
        measure(
          {
            name: 'audit_reads',
            title: 'GET /v1/audit-events?resource_id=…&status=5xx',
            path: plan.audit.path,
            headers: bearer(plan.audit.token),
          },
          settings(plan.audit.connections, plan.audit.rate),
        ),
      'audit_reads',
      'audit reads (left out)',
    ),
    part(
      plan.flood.connections,
      () =>
        measure(
          { name: 'flood', title: 'GET /v1/meetings with a bad token', path: '/v1/meetings?limit=1', headers: bearer('not-a-token') },
          settings(plan.flood.connections),
        ),
      'flood',
      'unauthenticated flood (left out)',
    ),
  ]);
  process.stdout.write('started\n');
  const [heavyPages, auditReads, flood] = await running;
  const statuses: Record<string, number> = {};
  for (const e of exports) statuses[e.status()] = (statuses[e.status()] ?? 0) + 1;
  const result: MixResult = {
    heavyPages,
    auditReads,
    flood,
    exports: { opened: exports.length, statuses, bytes_read: exports.reduce((n, e) => n + e.bytes(), 0) },
  };
  for (const e of exports) e.stop();
  rss.stop();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
