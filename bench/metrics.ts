import { familyOf, parseExposition, Sample } from '../src/metrics/exposition';
import { METRIC_PREFIX } from '../src/metrics/metrics';

/**
 * What the issue asks the metrics to show, each with the check that it is live after the main
 * pass (a family present is not enough: a counter that never moved is a metric not wired).
 */
export const LIVE_METRICS: Array<{ name: string; in: 'api' | 'worker'; live: (samples: Sample[]) => boolean }> = [
  {
    name: 'http_requests_total',
    in: 'api',
    live: (s) => s.some((x) => x.labels.route === '/v1/meetings/:meeting_id' && x.labels.status === '200' && x.value > 0),
  },
  { name: 'http_request_duration_seconds', in: 'api', live: (s) => s.some((x) => x.name.endsWith('_count') && x.value > 0) },
  {
    name: 'rate_limit_decisions_total',
    in: 'api',
    live: (s) => s.some((x) => x.labels.policy === 'client' && x.labels.decision === 'allowed' && x.value > 0),
  },
  { name: 'audit_queue_rows', in: 'api', live: (s) => s.length > 0 },
  { name: 'audit_batch_rows', in: 'api', live: (s) => s.some((x) => x.name.endsWith('_count') && x.value > 0) },
  {
    name: 'audit_commit_duration_seconds',
    in: 'api',
    live: (s) => s.some((x) => x.name.endsWith('_count') && x.labels.outcome === 'committed' && x.value > 0),
  },
  { name: 'db_pool_connections', in: 'api', live: (s) => s.some((x) => x.labels.pool === 'api' && x.value > 0) },
  { name: 'db_pool_waiting_requests', in: 'api', live: (s) => s.some((x) => x.labels.pool === 'api') },
  {
    name: 'db_pool_wait_seconds',
    in: 'api',
    live: (s) => s.some((x) => x.name.endsWith('_count') && x.labels.pool === 'api' && x.value > 0),
  },
  { name: 'dependency_up', in: 'api', live: (s) => s.some((x) => x.labels.dependency === 'postgres' && x.value === 1) },
  // The worker's, scraped while a backlog of deliveries drains.
  { name: 'change_feed_lag_seconds', in: 'worker', live: (s) => s.length === 1 && s[0].value >= 0 },
  { name: 'webhook_dispatch_lag_seconds', in: 'worker', live: (s) => s.length === 1 && s[0].value >= 0 },
  { name: 'webhook_deliveries_pending', in: 'worker', live: (s) => s.length === 1 && s[0].value > 0 },
  { name: 'webhook_oldest_pending_delivery_seconds', in: 'worker', live: (s) => s.length === 1 && s[0].value >= 0 },
  // The schema owner's pool (OwnerPool), which pg-boss, the deliveries and the read model share.
  { name: 'db_pool_connections', in: 'worker', live: (s) => s.some((x) => x.labels.pool === 'owner' && x.value > 0) },
];

export interface MetricsScrape {
  url: string;
  bytes: number;
  families: number;
  /** Each required metric, live or not, with its samples' count. */
  required: Array<{ name: string; samples: number; live: boolean }>;
  /** Label names whose values look like ids or free text (must be none). */
  unbounded: string[];
}

/** Scrapes a process's /metrics and checks every metric required of it (the API's or the worker's) is there and moving. */
export async function scrapeMetrics(url: string, side: 'api' | 'worker'): Promise<MetricsScrape> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const text = await res.text();
  const samples = parseExposition(text);
  const byFamily = new Map<string, Sample[]>();
  for (const s of samples) byFamily.set(familyOf(s.name), [...(byFamily.get(familyOf(s.name)) ?? []), s]);
  const required = LIVE_METRICS.filter((m) => m.in === side).map(({ name, live }) => {
    const found = byFamily.get(`${METRIC_PREFIX}${name}`) ?? [];
    return { name: `${METRIC_PREFIX}${name}`, samples: found.length, live: found.length > 0 && live(found) };
  });
  const unbounded = [
    ...new Set(
      samples.flatMap((s) =>
        Object.entries(s.labels)
          .filter(([, v]) => /_[0-9A-Za-z]{22}\b|@|\?/.test(v))
          .map(([k]) => `${s.name}{${k}}`),
      ),
    ),
  ];
  return { url, bytes: Buffer.byteLength(text), families: byFamily.size, required, unbounded };
}
