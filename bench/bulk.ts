/**
 * `npm run bench:bulk [-- --meetings 4000 --calls 2000 --emails 500 --chats 500]`: what a first
 * complete copy of one company costs, three ways, side by side against one production service:
 *
 * - per record: every list page (100 a page), then each meeting and call's evaluation, answers and
 *   transcript and each conversation's messages, one request each (what a copy cost before #34);
 * - include: every list page with `include` (the parts in the page; messages inline);
 * - export: one `GET /v1/export` with every part.
 *
 * For each: requests, seconds, records and bytes, and the ratios to the per-record copy; plus the
 * export stream's service RSS peak (back-pressure keeps it flat). Writes
 * bench/results/bulk-<date>.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/database/embedded-postgres';
import { BenchDatabase } from './database';
import { createTenant, refreshDocuments, seedVolume } from './dataset';
import { PRODUCTION_ENTRY, ServiceProcess, serviceEnv } from './service';

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

function options(argv: string[]) {
  const get = (flag: string, fallback: number) => {
    const at = argv.indexOf(flag);
    const value = at >= 0 ? Number(argv[at + 1]) : fallback;
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${flag} must be a whole number`);
    return value;
  };
  return { meetings: get('--meetings', 4000), calls: get('--calls', 2000), emails: get('--emails', 500), chats: get('--chats', 500) };
}

interface Copy {
  requests: number;
  seconds: number;
  records: number;
  bytes: number;
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const dataDir = join(tmpdir(), 'conversation-read-api-bench-bulk');
  const db = await BenchDatabase.open(dataDir, log);
  const tmp = join(dataDir, 'tmp');
  await mkdir(tmp, { recursive: true });
  const env = serviceEnv(db, tmp);
  const tenant = await createTenant(db, env, 'Bulk');
  log(`seeding ${JSON.stringify(o)}`);
  await seedVolume(env, tenant, { ...o, emailMessages: 10, chatMessages: 20 });
  await refreshDocuments(env);
  const service = await ServiceProcess.start(PRODUCTION_ENTRY, await freePort(), env, join(tmp, 'bulk.log'));
  try {
    const base = service.baseUrl;
    const tokenRes = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret }),
    });
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;
    const headers = { Authorization: `Bearer ${token}` };

    const copy = async (work: (count: { requests: number; records: number; bytes: number }) => Promise<void>): Promise<Copy> => {
      const count = { requests: 0, records: 0, bytes: 0 };
      const started = performance.now();
      await work(count);
      return { ...count, seconds: Math.round((performance.now() - started) / 100) / 10 };
    };
    const getJson = async (count: { requests: number; bytes: number }, path: string) => {
      count.requests++;
      const res = await fetch(`${base}${path}`, { headers });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 200)}`);
      count.bytes += Buffer.byteLength(text);
      return JSON.parse(text) as { data: Array<{ id: string }>; pagination: { has_more: boolean; next_cursor: string | null } };
    };
    const walk = async (
      count: { requests: number; records: number; bytes: number },
      path: string,
      each?: (id: string) => Promise<void>,
      records = true,
    ) => {
      let cursor: string | null = null;
      do {
        const page = await getJson(count, `${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        if (records) count.records += page.data.length;
        if (each) for (const item of page.data) await each(item.id);
        cursor = page.pagination.has_more ? page.pagination.next_cursor : null;
      } while (cursor);
    };

    log('per record: lists, then each part of each record');
    const perRecord = await copy(async (count) => {
      for (const path of ['/v1/meetings', '/v1/calls']) {
        await walk(count, path, async (id) => {
          for (const part of ['evaluations/overall', 'answers', 'transcript']) await getJson(count, `${path}/${id}/${part}`);
        });
      }
      for (const path of ['/v1/emails', '/v1/chat']) {
        await walk(count, path, (id) => walk(count, `${path}/${id}/messages`, undefined, false));
      }
    });
    log(`  ${JSON.stringify(perRecord)}`);

    log('include: the lists with every part');
    const included = await copy(async (count) => {
      for (const path of ['/v1/meetings?include=evaluation,answers,transcript', '/v1/calls?include=evaluation,answers,transcript']) await walk(count, path);
      for (const path of ['/v1/emails?include=messages', '/v1/chat?include=messages']) await walk(count, path);
    });
    log(`  ${JSON.stringify(included)}`);

    log('export: one stream with every part');
    service.rss.reset();
    const exported = await copy(async (count) => {
      count.requests++;
      const res = await fetch(`${base}/v1/export?include=evaluation,answers,transcript,messages`, { headers });
      if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status}`);
      let tail = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        count.bytes += chunk.byteLength;
        const text = tail + Buffer.from(chunk).toString('utf8');
        const lines = text.split('\n');
        tail = lines.pop() ?? '';
        count.records += lines.filter((l) => l && !l.startsWith('{"object":"export"')).length;
      }
    });
    const exportRss = service.rss.peakMb();
    log(`  ${JSON.stringify(exported)}, service RSS peak ${exportRss} MB`);

    const ratio = (c: Copy) => ({
      requests: Math.round((c.requests / perRecord.requests) * 10000) / 10000,
      seconds: Math.round((c.seconds / perRecord.seconds) * 1000) / 1000,
    });
    const report = {
      date: new Date().toISOString(),
      volume: o,
      per_record: perRecord,
      include: { ...included, vs_per_record: ratio(included) },
      export: { ...exported, vs_per_record: ratio(exported), service_rss_peak_mb: exportRss },
    };
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/bulk-${report.date.slice(0, 10)}.json`;
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${file}`);
  } finally {
    await service.stop();
    await db.close(false, dataDir);
  }
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
