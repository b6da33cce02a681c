/**
 * `npm run bench:capture [-- --meetings 600000 --rounds 6 --transactions 4000 --writers 4
 * --previous-capture FILE]`: what change capture costs writers, side by side in one run on a
 * fresh embedded database (or DATABASE_URL):
 *
 * - **bulk**: `seed:volume` of `meetings` meetings (every relation) with the capture triggers
 *   and without them, alternating rounds (triggerOverhead, as `npm run bench` measures it);
 * - **small transactions**: `writers` connections writing `transactions` transactions as a
 *   capture system does, one record a transaction (a meeting with an owner, a template, two tags,
 *   an account, a speaker and a transcript) and, one in 25, a user or a tag renamed (the
 *   re-showing writes that wait for the attaching ones), all on a handful of shared rows so that
 *   the writers meet on them; with the capture, without it and, given `--previous-capture` (a
 *   rendered capture.sql, e.g. `git show 49759b7:src/changes/capture.sql`), with that older
 *   capture: what the shared-row locks of #47 add. Deadlocks and serialization failures are run
 *   again, as a capture system must, and counted.
 *
 * Writes bench/results/capture-<date>.json.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { CAPTURE_FUNCTIONS } from '../src/changes/capture-sql';
import { statementsOf } from '../src/changes/render-capture-sql';
import { isRetryableTransaction } from '../src/common/errors/database-errors';
import { mintId } from '../src/common/ids/public-id';
import { BenchDatabase } from './database';
import { changeTriggers, triggerOverhead } from './feed';
import { serviceEnv } from './service';

interface Options {
  meetings: number;
  rounds: number;
  transactions: number;
  writers: number;
  previousCapture?: string;
}

function options(argv: string[]): Options {
  const at = (flag: string) => argv.indexOf(flag);
  const get = (flag: string, fallback: number) => {
    const value = at(flag) >= 0 ? Number(argv[at(flag) + 1]) : fallback;
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${flag} must be a whole number`);
    return value;
  };
  return {
    meetings: get('--meetings', 600_000),
    rounds: Math.max(1, get('--rounds', 6)),
    transactions: get('--transactions', 4000),
    writers: Math.max(1, get('--writers', 4)),
    previousCapture: at('--previous-capture') >= 0 ? argv[at('--previous-capture') + 1] : undefined,
  };
}

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const ratio = (a: number[], b: number[]) => Math.round((sum(a) / sum(b)) * 1000) / 1000;

/** The shared rows of one round's company, and the statements a writer's transactions use. */
interface Company {
  id: string;
  users: string[];
  tags: string[];
  accounts: string[];
  template: string;
}

async function makeCompany(owner: Client, name: string): Promise<Company> {
  const insert = async (sql: string, params: unknown[]) => (await owner.query<{ id: string }>(sql, params)).rows[0].id;
  const id = await insert(`INSERT INTO companies (public_id, name) VALUES ($1, $2) RETURNING id::text AS id`, [mintId('company'), name]);
  // One connection: one statement at a time.
  const many = async (n: number, make: (i: number) => Promise<string>) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await make(i));
    return ids;
  };
  const users = await many(8, (i) =>
    insert(`INSERT INTO users (public_id, company_id, name, email) VALUES ($1, $2, $3, $4) RETURNING id::text AS id`, [
      mintId('user'),
      id,
      `Vendedor ${i}`,
      `vendedor${i}.${id}@example.com`,
    ]),
  );
  const team = await insert(`INSERT INTO teams (public_id, company_id, name) VALUES ($1, $2, 'Vendas') RETURNING id::text AS id`, [
    mintId('team'),
    id,
  ]);
  for (const user of users) {
    await owner.query(
      `INSERT INTO team_memberships (company_id, user_id, team_id, role, is_default) VALUES ($1, $2, $3, 'participant', true)`,
      [id, user, team],
    );
  }
  const tags = await many(6, (i) =>
    insert(`INSERT INTO tags (public_id, company_id, name) VALUES ($1, $2, $3) RETURNING id::text AS id`, [mintId('tag'), id, `tag ${i}`]),
  );
  const accounts = await many(6, (i) =>
    insert(`INSERT INTO accounts (public_id, company_id, domain) VALUES ($1, $2, $3) RETURNING id::text AS id`, [
      mintId('account'),
      id,
      `cliente-${i}.com.br`,
    ]),
  );
  const template = await insert(`INSERT INTO templates (public_id, company_id, name) VALUES ($1, $2, 'Roteiro') RETURNING id::text AS id`, [
    mintId('template'),
    id,
  ]);
  return { id, users, tags, accounts, template };
}

/** One capture system's transaction: the `n`th of a run. */
async function transaction(client: Client, c: Company, n: number): Promise<void> {
  const pick = <T>(xs: T[], k: number) => xs[k % xs.length];
  if (n % 25 === 24) {
    // A re-showing write: a user or a tag renamed (they wait for the writers attaching to them).
    if (n % 50 === 49) await client.query(`UPDATE users SET name = $2 WHERE id = $1`, [pick(c.users, n), `Vendedor ${n}`]);
    else await client.query(`UPDATE tags SET name = $2 WHERE id = $1`, [pick(c.tags, n), `tag ${n}`]);
    return;
  }
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO recordings (public_id, company_id, kind, title, media_type, audience, meeting_at, duration_seconds, owner_id, template_id, participants, bot_history, transcript_status)
     VALUES ($1, $2, 'meeting', $3, 'video', 'external', now(), 1800, $4, $5, '[{"display_name": "Cliente", "kind": "external"}]', '[]', 'completed')
     RETURNING id::text AS id`,
    [mintId('meeting'), c.id, `Reunião ${n}`, pick(c.users, n), c.template],
  );
  const id = rows[0].id;
  await client.query(`INSERT INTO recording_tags (company_id, recording_id, tag_id) VALUES ($1, $2, $3), ($1, $2, $4)`, [
    c.id,
    id,
    pick(c.tags, n),
    pick(c.tags, n + 1),
  ]);
  await client.query(`INSERT INTO recording_accounts (company_id, recording_id, account_id) VALUES ($1, $2, $3)`, [
    c.id,
    id,
    pick(c.accounts, n),
  ]);
  await client.query(`INSERT INTO recording_enablements (company_id, recording_id) VALUES ($1, $2)`, [c.id, id]);
  await client.query(
    `INSERT INTO recording_speaking_durations (company_id, recording_id, user_id, duration_seconds) VALUES ($1, $2, $3, 600)`,
    [c.id, id, pick(c.users, n + 3)],
  );
  await client.query(
    `INSERT INTO transcripts (company_id, recording_id, variant, utterances) VALUES ($1, $2, 'original', '[{"speaker": null, "text": "Olá", "start_ms": 0, "end_ms": 900}]')`,
    [c.id, id],
  );
}

/** `transactions` transactions on `writers` connections at once; seconds, and how many were run again. */
async function smallRun(clients: Client[], c: Company, transactions: number): Promise<{ seconds: number; retried: number }> {
  let next = 0;
  let retried = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let n = next++; n < transactions; n = next++) {
        for (;;) {
          try {
            await client.query('BEGIN');
            await transaction(client, c, n);
            await client.query('COMMIT');
            break;
          } catch (error) {
            await client.query('ROLLBACK');
            if (!isRetryableTransaction(error)) throw error;
            retried++;
          }
        }
      }
    }),
  );
  return { seconds: Math.round((performance.now() - started) / 10) / 100, retried };
}

type Side = 'capture' | 'none' | 'previous';

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const dataDir = join(tmpdir(), 'conversation-read-api-bench-capture');
  const db = await BenchDatabase.open(dataDir, log);
  const tmp = join(tmpdir(), 'conversation-read-api-bench-capture-tmp');
  await mkdir(tmp, { recursive: true });
  const env = serviceEnv(db, tmp);
  const report: Record<string, unknown> = { date: new Date().toISOString(), database: db.description, options: o };
  try {
    if (o.meetings > 0) {
      log(`bulk: seed:volume of ${o.meetings} meetings with and without the capture, ${o.rounds} alternating rounds`);
      report.bulk = await triggerOverhead(db, env, o.meetings, o.rounds, log);
      log(`bulk: ${JSON.stringify(report.bulk)}`);
    }
    if (o.transactions > 0) {
      const triggers = await changeTriggers(db);
      const previous = o.previousCapture
        ? statementsOf(await readFile(o.previousCapture, 'utf8')).filter((s) => s.startsWith('CREATE OR REPLACE FUNCTION'))
        : [];
      const sides: Side[] = previous.length ? ['capture', 'none', 'previous'] : ['capture', 'none'];
      const install = async (side: Side) => {
        for (const t of triggers)
          await db.owner.query(`ALTER TABLE ${t.table} ${side === 'none' ? 'DISABLE' : 'ENABLE ALWAYS'} TRIGGER ${t.name}`);
        if (side !== 'none') for (const sql of side === 'previous' ? previous : CAPTURE_FUNCTIONS) await db.owner.query(sql);
      };
      const clients = await Promise.all(
        Array.from({ length: o.writers }, async (_, i) => {
          const client = new Client({ connectionString: db.urls.owner, application_name: `bench-capture-writer-${i}` });
          await client.connect();
          return client;
        }),
      );
      const seconds: Record<Side, number[]> = { capture: [], none: [], previous: [] };
      const retried: Record<Side, number> = { capture: 0, none: 0, previous: 0 };
      const perRound = Math.ceil(o.transactions / o.rounds);
      try {
        for (let round = 0; round < o.rounds; round++) {
          // Each side first in turn, so what drifts during the pass falls on every side alike.
          const order = sides.map((_, i) => sides[(i + round) % sides.length]);
          for (const side of order) {
            await install(side);
            const company = await makeCompany(db.owner, `Capture ${side} ${round + 1}`);
            await db.checkpoint();
            const run = await smallRun(clients, company, perRound);
            seconds[side].push(run.seconds);
            retried[side] += run.retried;
            log(
              `round ${round + 1}/${o.rounds}: ${perRound} transactions on ${o.writers} writers, capture ${side}: ${run.seconds} s, ${run.retried} run again`,
            );
          }
        }
      } finally {
        await install('capture');
        await Promise.all(clients.map((c) => c.end()));
      }
      report.small = {
        transactions: perRound * o.rounds,
        writers: o.writers,
        seconds,
        retried,
        ratio_capture_to_none: ratio(seconds.capture, seconds.none),
        ...(previous.length
          ? {
              ratio_capture_to_previous: ratio(seconds.capture, seconds.previous),
              ratio_previous_to_none: ratio(seconds.previous, seconds.none),
            }
          : {}),
      };
      log(`small transactions: ${JSON.stringify(report.small)}`);
    }
    const out = join('bench', 'results', `capture-${new Date().toISOString().slice(0, 10)}.json`);
    await mkdir(join('bench', 'results'), { recursive: true });
    await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${out}`);
  } finally {
    await db.close(false, dataDir);
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
