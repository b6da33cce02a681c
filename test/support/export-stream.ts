import { get as httpGet, IncomingMessage } from 'node:http';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { CompaniesRepository } from '../../src/companies/companies.repository';
import { CompaniesService } from '../../src/companies/companies.service';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { VolumeSeeder } from '../../src/seeding/volume-seeder';
import { createCompany } from './factories';
import { assertTestDatabase } from './test-app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

const NEWLINE = 0x0a;
const newlinesIn = (chunk: Buffer): number => {
  let n = 0;
  for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) n++;
  return n;
};

/** An export read through a plain HTTP client, paused after its headers until `resume()` (or `readLines()`). */
export function openExport(base: string, path: string, token: string, headers: Record<string, string> = {}) {
  let chunks: Buffer[] = [];
  let lines = 0;
  let finished = false;
  let waiter: { lines: number; wake: () => void } | undefined;
  let response!: IncomingMessage;
  const headed = new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpGet(`${base}${path}`, { headers: { Authorization: `Bearer ${token}`, ...headers } }, (res) => {
      response = res;
      res.pause();
      resolve(res);
    });
    req.on('error', reject);
  });
  const ended = headed.then(
    (res) =>
      new Promise<{ body: Buffer; complete: boolean }>((resolve) => {
        const end = (complete: boolean) => {
          finished = true;
          waiter?.wake();
          resolve({ body: Buffer.concat(chunks), complete });
        };
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          lines += newlinesIn(c);
          if (waiter && lines >= waiter.lines) {
            res.pause();
            waiter.wake();
          }
        });
        res.on('end', () => end(true));
        res.on('aborted', () => end(false));
        res.on('error', () => end(false));
      }),
  );
  return {
    headed,
    ended,
    resume: () => response.resume(),
    reset: () => (chunks = []),
    /** Every byte received so far. */
    received: () => Buffer.concat(chunks),
    /**
     * Reads on until at least `atLeast` complete lines have come in all (or the stream ended),
     * then pauses again; the bytes received so far. Rejects after `timeoutMs`.
     */
    readLines: async (atLeast: number, timeoutMs: number): Promise<Buffer> => {
      const res = await headed;
      if (lines < atLeast && !finished) {
        let timer: NodeJS.Timeout | undefined;
        try {
          await new Promise<void>((resolve, reject) => {
            waiter = { lines: atLeast, wake: resolve };
            timer = setTimeout(() => reject(new Error(`${atLeast} lines not received within ${timeoutMs} ms (${lines} so far)`)), timeoutMs);
            res.resume();
          });
        } finally {
          clearTimeout(timer);
          waiter = undefined;
        }
      }
      return Buffer.concat(chunks);
    },
  };
}

/** supertest's parser for a body kept as its bytes (NDJSON, which it would not parse). */
export const rawBody = (r: request.Response, done: (error: Error | null, body: Buffer) => void) => {
  const parts: Buffer[] = [];
  r.on('data', (c: Buffer) => parts.push(c));
  r.on('end', () => done(null, Buffer.concat(parts)));
};

export const linesOf = (body: Buffer): Json[] =>
  body
    .toString('utf8')
    .split('\n')
    .filter((l) => l.length)
    .map((l) => JSON.parse(l));

/** The complete lines of what a cut stream delivered (a partial last line is dropped), parsed. */
export const completeLinesOf = (body: Buffer): Json[] => linesOf(body.subarray(0, body.lastIndexOf(NEWLINE) + 1));

/** Resolves as `promise` does, or rejects with `what` after `timeoutMs`. */
export async function withDeadline<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${timeoutMs} ms`)), timeoutMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A company too big for the sockets' buffers: 6,000 meetings with their transcripts (tens of MB).
 * `ownerUrl`: the schema owner of the cluster `db` is on (the main test cluster by default).
 */
export async function seedBigCompany(db: DataSource, ownerUrl = process.env.TEST_MIGRATION_DATABASE_URL): Promise<Company> {
  const big = await createCompany(db);
  // As `seed:volume` runs: the schema owner without the tests' statement timeout.
  const seeding = await new DataSource(dataSourceOptions(assertTestDatabase(ownerUrl), { poolSize: 1, statementTimeoutMs: 600_000 })).initialize();
  try {
    await new VolumeSeeder(seeding, new CompaniesService(new CompaniesRepository(seeding))).seed({
      company: big.publicId,
      meetings: 6000,
      calls: 0,
      emails: 0,
      chats: 0,
      messages: 0,
    });
  } finally {
    await seeding.destroy();
  }
  return big;
}
