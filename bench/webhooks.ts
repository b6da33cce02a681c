import { ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../src/database/embedded-postgres';
import { MetricsScrape, scrapeMetrics } from './metrics';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { BenchDatabase, cli } from './database';
import { createTenant, seedVolume, Tenant } from './dataset';
import { percentiles } from './load';

export const WORKER_ENTRY = join('dist', 'src', 'worker.main.js');

/** Commit-to-receiver latency of one endpoint while a writer commits `rate` changes a second. */
export interface WebhookLatency {
  rate: number;
  seconds: number;
  samples: number;
  missing: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface WebhookReport {
  /** One fast receiver. */
  latency: WebhookLatency;
  /** The same fast receiver while another endpoint of the company answers in 5 s, and a third always 503 (retried). */
  beside_slow: WebhookLatency & { slow_answered: number; failing_attempts: number };
  /** A backlog of `changes` changes in one transaction to `endpoints` endpoints: deliveries a second until all arrived. */
  throughput: { changes: number; endpoints: number; deliveries: number; seconds: number; per_second: number };
  /** The worker's /metrics, scraped while the backlog drained. */
  metrics?: MetricsScrape;
}

/** Receivers on one local server, one per path: when each object id first arrived, and how many requests came. */
class Receivers {
  readonly firstSeen = new Map<string, Map<string, number>>();
  readonly counts = new Map<string, number>();
  private readonly answers = new Map<string, { delayMs: number; status: number }>();

  private constructor(
    private readonly server: Server,
    readonly base: string,
  ) {}

  static async start(): Promise<Receivers> {
    const server = createServer();
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receivers = new Receivers(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const now = performance.now();
        const path = req.url ?? '/';
        const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { object_id: string } };
        const seen = receivers.firstSeen.get(path) ?? new Map<string, number>();
        receivers.firstSeen.set(path, seen);
        if (!seen.has(data.object_id)) seen.set(data.object_id, now);
        receivers.counts.set(path, (receivers.counts.get(path) ?? 0) + 1);
        const answer = receivers.answers.get(path) ?? { delayMs: 0, status: 204 };
        setTimeout(() => res.writeHead(answer.status).end(), answer.delayMs);
      });
    });
    return receivers;
  }

  /** The URL of a receiver at `path` that answers `status` after `delayMs`. */
  url(path: string, delayMs = 0, status = 204): string {
    this.answers.set(path, { delayMs, status });
    return `${this.base}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The worker as a deployment runs it (`npm run worker:prod`), its log in a file; resolves once it runs. */
async function startWorker(env: NodeJS.ProcessEnv, logFile: string, metricsPort: number): Promise<ChildProcess> {
  const log = createWriteStream(logFile, { flags: 'a' });
  await new Promise((resolve) => log.once('open', resolve));
  const child = spawn(process.execPath, [WORKER_ENTRY], {
    env: { ...env, METRICS_PORT: String(metricsPort) },
    stdio: ['ignore', log, log],
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the worker exited: ${await readFile(logFile, 'utf8')}`);
    if ((await readFile(logFile, 'utf8').catch(() => '')).includes('worker running:')) return child;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error('the worker did not start within 60 s');
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killer);
}

/**
 * A writer commits one change every `1000 / rate` ms, each to another meeting, noting when each
 * commit returned; the receiver at `path` notes when each meeting's event first arrived.
 */
async function latencyRun(
  db: BenchDatabase,
  receivers: Receivers,
  path: string,
  meetings: Array<{ id: string; public_id: string }>,
  rate: number,
): Promise<WebhookLatency> {
  const writer = new Client({ connectionString: db.urls.owner, application_name: 'bench-webhook-writer' });
  await writer.connect();
  const committed = new Map<string, number>();
  try {
    const started = performance.now();
    for (let i = 0; i < meetings.length; i++) {
      const due = started + (i * 1000) / rate;
      if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
      await writer.query(`UPDATE recordings SET title = 'Webhook bench ' || $2 WHERE id = $1`, [meetings[i].id, i]);
      committed.set(meetings[i].public_id, performance.now());
    }
  } finally {
    await writer.end();
  }
  // The last commits get 15 s to arrive; what never does is reported missing.
  const deadline = performance.now() + 15_000;
  const seen = () => receivers.firstSeen.get(path) ?? new Map<string, number>();
  while (performance.now() < deadline && [...committed.keys()].some((id) => !seen().has(id))) await new Promise((r) => setTimeout(r, 100));
  const latencies = [...committed].filter(([id]) => seen().has(id)).map(([id, at]) => seen().get(id)! - at);
  const p = percentiles(latencies);
  return {
    rate,
    seconds: meetings.length / rate,
    samples: latencies.length,
    missing: committed.size - latencies.length,
    p50_ms: p.p50,
    p99_ms: p.p99,
    max_ms: p.max,
  };
}

/**
 * The webhooks' speed, with a worker process of its own: commit-to-receiver latency at `rate`
 * changes a second to a fast receiver, the same beside an endpoint whose receiver takes 5 s per
 * answer and one whose receiver always answers 503 (its retries due all along), and the throughput of a backlog (`backlog` changes in one transaction, to three
 * endpoints) until every delivery arrived.
 */
export async function webhookBench(
  db: BenchDatabase,
  env: NodeJS.ProcessEnv,
  tmp: string,
  o: { rate: number; seconds: number; backlog: number },
  log: (line: string) => void,
): Promise<WebhookReport> {
  const workerEnv = { ...env, WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_SECRET_KEY: 'bench-webhook-secret-key-0123456789abcdef' };
  const tenant: Tenant = await createTenant(db, workerEnv, 'Bench webhooks');
  const perRun = o.rate * o.seconds;
  await seedVolume(workerEnv, tenant, {
    meetings: Math.max(2 * perRun, o.backlog),
    calls: 0,
    emails: 0,
    chats: 0,
    emailMessages: 1,
    chatMessages: 1,
  });
  await db.vacuumAnalyze();
  const { rows } = await db.owner.query<{ id: string; public_id: string }>(
    `SELECT id::text AS id, public_id FROM recordings WHERE company_id = $1 AND kind = 'meeting' ORDER BY random() LIMIT $2`,
    [tenant.internalId, 2 * perRun],
  );
  const receivers = await Receivers.start();
  const metricsPort = await freePort();
  const worker = await startWorker(workerEnv, join(tmp, 'worker.log'), metricsPort);
  let metrics: MetricsScrape | undefined;
  const add = (path: string, delayMs = 0, status = 204) =>
    cli<{ endpoint_id: string }>(workerEnv, ['webhooks:add', '--company', tenant.companyId, '--url', receivers.url(path, delayMs, status)]);
  try {
    const fast = await add('/fast');
    log(`webhook latency: ${o.rate} changes/s for ${o.seconds} s to one fast receiver`);
    const latency = await latencyRun(db, receivers, '/fast', rows.slice(0, perRun), o.rate);
    log(`  p50 ${latency.p50_ms} ms, p99 ${latency.p99_ms} ms, ${latency.missing} missing`);

    const slow = await add('/slow', 5000);
    const failing = await add('/failing', 0, 503);
    log(`webhook latency beside a receiver that answers in 5 s and one that always answers 503: ${o.rate} changes/s for ${o.seconds} s`);
    const besideSlow = await latencyRun(db, receivers, '/fast', rows.slice(perRun, 2 * perRun), o.rate);
    const slowAnswered = receivers.counts.get('/slow') ?? 0;
    const failingAttempts = receivers.counts.get('/failing') ?? 0;
    log(
      `  fast receiver p50 ${besideSlow.p50_ms} ms, p99 ${besideSlow.p99_ms} ms; the slow one got ${slowAnswered}, the failing one ${failingAttempts}`,
    );
    for (const e of [slow, failing]) await cli(workerEnv, ['webhooks:remove', '--endpoint', e.endpoint_id]);

    const extra = [await add('/backlog-1'), await add('/backlog-2')];
    const paths = ['/fast', '/backlog-1', '/backlog-2'];
    const before = paths.map((p) => receivers.counts.get(p) ?? 0);
    log(`webhook throughput: ${o.backlog} changes in one transaction to ${paths.length} endpoints`);
    const started = performance.now();
    await db.owner.query(
      `UPDATE recordings SET title = 'Webhook backlog' WHERE id IN (
         SELECT id FROM recordings WHERE company_id = $1 AND kind = 'meeting' ORDER BY id LIMIT $2)`,
      [tenant.internalId, o.backlog],
    );
    const expected = o.backlog * paths.length;
    const delivered = () => paths.reduce((n, p, i) => n + (receivers.counts.get(p) ?? 0) - before[i], 0);
    const deadline = performance.now() + 600_000;
    let scraped = 0;
    while (delivered() < expected && performance.now() < deadline) {
      // Scraped once a second while the backlog drains, until a scrape shows every required metric live.
      if (delivered() > 0 && !metrics?.required.every((r) => r.live) && performance.now() - scraped >= 1000) {
        scraped = performance.now();
        metrics = await scrapeMetrics(`http://127.0.0.1:${metricsPort}/metrics`, 'worker');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const secondsTaken = (performance.now() - started) / 1000;
    const throughput = {
      changes: o.backlog,
      endpoints: paths.length,
      deliveries: delivered(),
      seconds: Math.round(secondsTaken * 10) / 10,
      per_second: Math.round(delivered() / secondsTaken),
    };
    log(`  ${throughput.deliveries} deliveries in ${throughput.seconds} s: ${throughput.per_second}/s`);
    for (const e of [fast, ...extra]) await cli(workerEnv, ['webhooks:remove', '--endpoint', e.endpoint_id]);
    return { latency, beside_slow: { ...besideSlow, slow_answered: slowAnswered, failing_attempts: failingAttempts }, throughput, metrics };
  } finally {
    await stopWorker(worker);
    await receivers.close();
  }
}
