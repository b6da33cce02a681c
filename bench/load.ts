import autocannon from 'autocannon';
import { RssSampler } from './service';

/** One load scenario: a request shape that autocannon repeats on every connection. */
export interface Scenario {
  name: string;
  /** What the table shows, e.g. `GET /v1/meetings/{id}`. */
  title: string;
  method?: 'GET' | 'POST';
  /** A fixed path, or one drawn afresh for every request (random ids). */
  path: string | (() => string);
  headers?: Record<string, string>;
  body?: string;
}

export interface Measurement {
  name: string;
  title: string;
  requests: number;
  requests_per_second: number;
  /** Percentiles of every response's latency, in milliseconds (0.01 ms resolution). */
  latency_ms: { p50: number; p90: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non_2xx: number;
  status_codes: Record<string, number>;
  /** Highest resident set size of the service while this scenario ran. */
  peak_rss_mb: number;
}

export interface LoadSettings {
  baseUrl: string;
  connections: number;
  duration: number;
  warmup: number;
  rss: RssSampler;
  /** Requests per second over all connections (autocannon's overallRate); unset: each connection as fast as it is answered. */
  rate?: number;
}

/** One measured run: what autocannon counted and every latency it saw. */
interface Run {
  seconds: number;
  latencies: number[];
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  peakRssMb: number;
}

/** Runs `scenario` for `warmup` seconds (thrown away), then measures it for `duration` seconds. */
async function run(scenario: Scenario, settings: LoadSettings): Promise<Run> {
  if (settings.warmup > 0) await fire(scenario, settings, settings.warmup);
  settings.rss.reset();
  const latencies: number[] = [];
  const result = await fire(scenario, settings, settings.duration, (ms) => latencies.push(ms));
  return {
    seconds: result.duration,
    latencies,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0])),
    peakRssMb: settings.rss.peakMb(),
  };
}

/** Several runs of one scenario as one measurement: their requests over their seconds, percentiles over all of their latencies. */
function summarize(scenario: Scenario, runs: Run[]): Measurement {
  const statusCodes: Record<string, number> = {};
  for (const r of runs) for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const requests = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const total = (f: (r: Run) => number) => runs.reduce((n, r) => n + f(r), 0);
  return {
    name: scenario.name,
    title: scenario.title,
    requests,
    requests_per_second: round(requests / total((r) => r.seconds), 1),
    latency_ms: percentiles(runs.flatMap((r) => r.latencies)),
    errors: total((r) => r.errors),
    timeouts: total((r) => r.timeouts),
    non_2xx: total((r) => r.non2xx),
    status_codes: statusCodes,
    peak_rss_mb: Math.max(...runs.map((r) => r.peakRssMb)),
  };
}

export async function measure(scenario: Scenario, settings: LoadSettings): Promise<Measurement> {
  return summarize(scenario, [await run(scenario, settings)]);
}

/**
 * The same scenario against several services, in alternating rounds (A, B, A, B, …), so that
 * whatever drifts on the machine meanwhile weighs on each of them alike. One measurement each.
 */
export async function alternate(contenders: Array<{ scenario: Scenario; settings: LoadSettings }>, rounds: number): Promise<Measurement[]> {
  const runs: Run[][] = contenders.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, c] of contenders.entries()) runs[i].push(await run(c.scenario, c.settings));
  }
  return contenders.map((c, i) => summarize(c.scenario, runs[i]));
}

function fire(scenario: Scenario, settings: LoadSettings, seconds: number, onLatency?: (ms: number) => void): Promise<autocannon.Result> {
  const path = scenario.path;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: settings.baseUrl,
        connections: settings.connections,
        ...(settings.rate ? { overallRate: settings.rate } : {}),
        duration: seconds,
        timeout: 10,
        method: scenario.method ?? 'GET',
        headers: scenario.headers,
        body: scenario.body,
        requests: [typeof path === 'string' ? { path } : { setupRequest: (request: autocannon.Request) => ({ ...request, path: path() }) }],
      },
      (error, result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)),
    );
    if (onLatency) instance.on('response', (_client, _status, _bytes, responseTime) => onLatency(responseTime));
  });
}

/** Nearest-rank percentiles. */
export function percentiles(values: number[]): Measurement['latency_ms'] {
  if (!values.length) return { p50: 0, p90: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)], 2);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: round(sorted[sorted.length - 1], 2) };
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A statement's timings as the single-question benches report them: mean, p50 and p99, in milliseconds to `digits` places. */
export function statementTimes(times: number[], digits: number): { mean_ms: number; p50_ms: number; p99_ms: number } {
  const p = percentiles(times);
  return {
    mean_ms: round(times.reduce((a, b) => a + b, 0) / times.length, digits),
    p50_ms: round(p.p50, digits),
    p99_ms: round(p.p99, digits),
  };
}
