/**
 * `npm run bench:sdk [-- --meetings N --rounds N]`: what the SDK costs over plain fetch, side by
 * side in one run against one production service. One company is seeded (meetings, calls, e-mail
 * and chat conversations with their messages; the read model written); then, in alternating
 * rounds (the order flips each round), the same work done both ways:
 * - the meetings list walked at 100 a page: a loop of `fetch` + `json()` against
 *   `for await (const m of api.meetings.list({ limit: 100 }))`;
 * - the whole export with every part: the body split into lines and `JSON.parse`d by hand against
 *   `for await (const r of api.export({ include }))`.
 * Then `api.sync` takes a complete copy into a MemoryStore (its requests and seconds), seed:activity
 * writes, and a catch-up is measured (requests per hundred feed entries).
 * Results in bench/results/sdk-<date>.json; the analysis in docs/BENCHMARKS.md. The SDK used is the
 * built package (`npm run sdk:build`), as an integrator's program loads it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConversationApi, MemoryStore } from '@conversation-read-api/sdk';
import { freePort } from '../src/database/embedded-postgres';
import { BenchDatabase, cli } from './database';
import { createTenant, refreshDocuments, seedVolume } from './dataset';
import { issueToken } from './scenarios';
import { PRODUCTION_ENTRY, ServiceProcess, serviceEnv } from './service';

const INCLUDE = ['evaluation', 'answers', 'transcript', 'messages'] as const;

function option(argv: string[], flag: string, fallback: number): number {
  const at = argv.indexOf(flag);
  const value = at >= 0 ? Number(argv[at + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${flag} must be a positive whole number`);
  return value;
}

interface Run {
  records: number;
  seconds: number;
  megabytes?: number;
}

async function timed(work: () => Promise<{ records: number; bytes?: number }>): Promise<Run> {
  const started = performance.now();
  const { records, bytes } = await work();
  const seconds = (performance.now() - started) / 1000;
  return { records, seconds: Math.round(seconds * 1000) / 1000, ...(bytes ? { megabytes: Math.round(bytes / 1e5) / 10 } : {}) };
}

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
  const argv = process.argv.slice(2);
  const meetings = option(argv, '--meetings', 10_000);
  const rounds = option(argv, '--rounds', 3);
  const dataDir = join(tmpdir(), 'conversation-read-api-bench-sdk');
  const db = await BenchDatabase.open(dataDir, log);
  const tmp = join(dataDir, 'tmp');
  await mkdir(tmp, { recursive: true });
  const env = serviceEnv(db, tmp);
  const tenant = await createTenant(db, env, 'SDK');
  const quarter = Math.max(1, Math.round(meetings / 4));
  log(`seeding ${meetings} meetings, ${quarter} calls, ${quarter} e-mail and ${quarter} chat conversations`);
  await seedVolume(env, tenant, { meetings, calls: quarter, emails: quarter, chats: quarter, emailMessages: 6, chatMessages: 12 });
  await db.vacuumAnalyze();
  await refreshDocuments(env);
  const service = await ServiceProcess.start(PRODUCTION_ENTRY, await freePort(), env, join(tmp, 'sdk-service.log'));
  try {
    const base = service.baseUrl;
    const bearer = { authorization: `Bearer ${await issueToken(base, tenant)}` };
    const api = new ConversationApi({ baseUrl: base, clientId: tenant.clientId, clientSecret: tenant.clientSecret });

    const rawWalk = () =>
      timed(async () => {
        let records = 0;
        let cursor: string | null = null;
        do {
          const res = await fetch(`${base}/v1/meetings?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: bearer });
          const page = (await res.json()) as { data: unknown[]; pagination: { has_more: boolean; next_cursor: string | null } };
          records += page.data.length;
          cursor = page.pagination.has_more ? page.pagination.next_cursor : null;
        } while (cursor);
        return { records };
      });
    const sdkWalk = () =>
      timed(async () => {
        let records = 0;
        for await (const _ of api.meetings.list({ limit: 100 })) records++;
        return { records };
      });
    const rawExport = () =>
      timed(async () => {
        const res = await fetch(`${base}/v1/export?include=${INCLUDE.join(',')}`, { headers: bearer });
        const decoder = new TextDecoder();
        let records = 0;
        let bytes = 0;
        let buffered = '';
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          bytes += chunk.length;
          buffered += decoder.decode(chunk, { stream: true });
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          for (const line of lines) if (line && (JSON.parse(line) as { object: string }).object !== 'export') records++;
        }
        return { records, bytes };
      });
    const sdkExport = () =>
      timed(async () => {
        let records = 0;
        for await (const _ of api.export({ include: [...INCLUDE] })) records++;
        return { records };
      });

    const pairs: Array<{ name: string; raw: () => Promise<Run>; sdk: () => Promise<Run> }> = [
      { name: 'meetings walked at 100 a page', raw: rawWalk, sdk: sdkWalk },
      { name: 'the export with every part', raw: rawExport, sdk: sdkExport },
    ];
    const measured: Array<{ name: string; raw: Run[]; sdk: Run[] }> = [];
    for (const pair of pairs) {
      const runs = { name: pair.name, raw: [] as Run[], sdk: [] as Run[] };
      await pair.raw(); // warm both paths once
      await pair.sdk();
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 ? (['sdk', 'raw'] as const) : (['raw', 'sdk'] as const);
        for (const side of order) runs[side].push(await pair[side]());
      }
      const best = (list: Run[]) => Math.min(...list.map((r) => r.seconds));
      log(`${pair.name}: plain fetch ${best(runs.raw)} s, SDK ${best(runs.sdk)} s (${runs.raw[0]!.records} records, SDK/plain time ${(best(runs.sdk) / best(runs.raw)).toFixed(3)})`);
      measured.push(runs);
    }

    log('api.sync into a MemoryStore from nothing');
    const store = new MemoryStore();
    const started = performance.now();
    const copy = await api.sync(store);
    const copySeconds = Math.round(performance.now() - started) / 1000;
    log(`  ${store.objects.size} objects in ${copy.requests} requests, ${copySeconds} s`);
    log('seed:activity for 30 s, then a catch-up');
    await cli(env, ['seed:activity', '--company', tenant.companyId, '--minutes', '0.5', '--rate', '1200']);
    const catchUp = await api.sync(store);
    log(`  ${catchUp.entries} entries in ${catchUp.requests} requests (${catchUp.pages} feed pages)`);

    const result = {
      date: new Date().toISOString(),
      meetings,
      rounds,
      pairs: measured,
      sync: { objects: store.objects.size, requests: copy.requests, seconds: copySeconds, exported: copy.exported },
      catch_up: { entries: catchUp.entries, pages: catchUp.pages, requests: catchUp.requests, fetched: catchUp.fetched },
    };
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/sdk-${result.date.slice(0, 10)}.json`;
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${file}`);
  } finally {
    await service.stop();
    await db.close(false, dataDir);
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
