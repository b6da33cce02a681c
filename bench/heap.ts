/**
 * `npm run bench:heap [-- --meetings N --rounds N --semi MB]`: what the API's heap options cost,
 * side by side in one run. One company is seeded (meetings with every part, the read model
 * written), then three services run at once on it, each with other V8 heap options: none (V8
 * sizes the heap for the machine), the deployed NODE_OPTIONS (the API manifest's), and the
 * deployed options with a larger young generation (`--max-semi-space-size`). Each is loaded in
 * turn, alternating rounds, with the single-record read and a page of 100 under 50 connections,
 * and takes the company's whole export with every part while its resident memory is sampled.
 * Results in bench/results/heap-<date>.json; the analysis in docs/BENCHMARKS.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/database/embedded-postgres';
import { BenchDatabase } from './database';
import { createTenant, refreshDocuments, sampleMeetingIds, seedVolume } from './dataset';
import { alternate } from './load';
import { issueToken } from './scenarios';
import { deployedNodeOptions, PRODUCTION_ENTRY, residentMb, ServiceProcess, serviceEnv } from './service';

function option(argv: string[], flag: string, fallback: number): number {
  const at = argv.indexOf(flag);
  const value = at >= 0 ? Number(argv[at + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${flag} must be a positive whole number`);
  return value;
}

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
  const argv = process.argv.slice(2);
  const meetings = option(argv, '--meetings', 20_000);
  const rounds = option(argv, '--rounds', 2);
  const semi = option(argv, '--semi', 16);
  const dataDir = join(tmpdir(), 'conversation-read-api-bench-heap');
  const db = await BenchDatabase.open(dataDir, log);
  const tmp = join(dataDir, 'tmp');
  await mkdir(tmp, { recursive: true });
  const env = serviceEnv(db, tmp);
  const tenant = await createTenant(db, env, 'Heap');
  log(`seeding ${meetings} meetings`);
  await seedVolume(env, tenant, { meetings, calls: 0, emails: 0, chats: 0, emailMessages: 10, chatMessages: 20 });
  await db.vacuumAnalyze();
  await refreshDocuments(env);
  const ids = await sampleMeetingIds(db, tenant);
  const deployed = deployedNodeOptions();
  // Later flags win: the first variant lifts the deployed cap back to what V8 would choose here.
  const variants = [
    { name: 'no heap options', flags: '--max-old-space-size=16384' },
    { name: `deployed (${deployed})`, flags: '' },
    { name: `deployed + --max-semi-space-size=${semi}`, flags: `--max-semi-space-size=${semi}` },
  ];
  const services: ServiceProcess[] = [];
  try {
    for (const [i, v] of variants.entries()) {
      services.push(
        await ServiceProcess.start(PRODUCTION_ENTRY, await freePort(), { ...env, NODE_OPTIONS: v.flags }, join(tmp, `heap-${i}.log`)),
      );
    }
    const tokens = await Promise.all(services.map((s) => issueToken(s.baseUrl, tenant)));
    const settings = (i: number) => ({ baseUrl: services[i].baseUrl, connections: 50, duration: 10, warmup: 3, rss: services[i].rss });
    const headers = (i: number) => ({ authorization: `Bearer ${tokens[i]}` });
    const load = async (title: string, path: (() => string) | string) => {
      log(`${title}: ${rounds} alternating rounds of each variant`);
      const measured = await alternate(
        variants.map((v, i) => ({ scenario: { name: v.name, title, path, headers: headers(i) }, settings: settings(i) })),
        rounds,
      );
      for (const m of measured)
        log(`  ${m.name}: ${m.requests_per_second} req/s, p50 ${m.latency_ms.p50} ms, peak RSS ${m.peak_rss_mb} MB`);
      return measured;
    };
    const single = await load('GET /v1/meetings/{id}', () => `/v1/meetings/${ids[Math.floor(Math.random() * ids.length)]}`);
    const page = await load('GET /v1/meetings?limit=100', '/v1/meetings?limit=100');
    log('the whole export with every part, each variant');
    const exports: Array<{ name: string; seconds: number; rest_mb: number; peak_mb: number; growth_mb: number }> = [];
    for (const [i, v] of variants.entries()) {
      const rest = residentMb(services[i].pid).rss;
      services[i].rss.reset();
      const started = performance.now();
      const res = await fetch(`${services[i].baseUrl}/v1/export?types=meeting&include=evaluation,answers,transcript`, {
        headers: { ...headers(i), 'accept-encoding': 'identity' },
      });
      for await (const _ of res.body as unknown as AsyncIterable<Uint8Array>);
      const peak = services[i].rss.peakMb();
      exports.push({
        name: v.name,
        seconds: Math.round(performance.now() - started) / 1000,
        rest_mb: rest,
        peak_mb: peak,
        growth_mb: peak - rest,
      });
      log(`  ${v.name}: ${exports[i].seconds} s, RSS ${rest} → ${peak} MB`);
    }
    const result = { date: new Date().toISOString(), meetings, rounds, variants, single, page, exports };
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/heap-${result.date.slice(0, 10)}.json`;
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${file}`);
  } finally {
    for (const s of services) await s.stop();
    await db.close(false, dataDir);
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
