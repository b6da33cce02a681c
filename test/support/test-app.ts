import { generateKeyPairSync } from 'node:crypto';
import type { Server } from 'node:http';
import { DynamicModule, Type } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config/app-config';
import { prepareRuntime } from '../../src/runtime';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { recordContract } from './contract-recorder';

let signingKey: string | undefined;
/** The RSA private key (PEM) every test app signs tokens with, unless a test overrides JWT_PRIVATE_KEY. */
export function testSigningKey(): string {
  signingKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return signingKey;
}

/** Refuses to touch a database whose name does not say it is a test database. */
export function assertTestDatabase(url: string | undefined): string {
  if (!url) throw new Error('no test database: run the tests through jest (its global setup starts PostgreSQL)');
  const name = new URL(url).pathname.slice(1);
  if (!/test/i.test(name)) throw new Error(`refusing to run tests against database "${name}"`);
  return url;
}

/** The cursor secret of every test app (a CLI that must open an app's cursors is given it too). */
export const TEST_CURSOR_SECRET = 'test-cursor-secret-0123456789abcdef0123456789';

/** The key every test app and test CLI seals webhook secrets with, so one opens what the other sealed. */
export const TEST_WEBHOOK_SECRET_KEY = 'test-webhook-secret-key-0123456789abcdef';

/**
 * Quotas no functional test reaches (the defaults would make a suite that traverses many
 * pages fail on rate limits); the rate-limit specs set their own.
 */
export const UNREACHED_RATE_LIMITS = {
  RATE_LIMIT_CLIENT: '1000000/60',
  RATE_LIMIT_COMPANY: '1000000/60',
  RATE_LIMIT_EMAIL_CONTENT: '1000000/60',
  RATE_LIMIT_CHAT_CONTENT: '1000000/60',
  RATE_LIMIT_EXPORT: '1000000/60',
  RATE_LIMIT_WEBHOOK_ADMIN: '1000000/60',
  RATE_LIMIT_TOKEN: '1000000/60',
  RATE_LIMIT_UNAUTHENTICATED: '1000000/60',
};

/** The real application, configured for a test database; `env` overrides configuration. */
export async function createTestApp(
  options: {
    env?: NodeJS.ProcessEnv;
    extra?: Array<Type | DynamicModule>;
    faults?: boolean;
    /** Another test cluster's database (the API role's and the schema owner's URLs). */
    urls?: { api: string; owner: string };
  } = {},
): Promise<NestExpressApplication> {
  const prefix = options.faults ? 'TEST_FAULTS_' : 'TEST_';
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: options.urls?.api ?? assertTestDatabase(process.env[`${prefix}DATABASE_URL`]),
    MIGRATION_DATABASE_URL: options.urls?.owner ?? assertTestDatabase(process.env[`${prefix}MIGRATION_DATABASE_URL`]),
    CURSOR_SECRET: TEST_CURSOR_SECRET,
    JWT_PRIVATE_KEY: testSigningKey(),
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
    // A test app sends webhooks only when its test asks for the worker.
    WORKER: '0',
    LOG_FORMAT: 'json',
    ...UNREACHED_RATE_LIMITS,
    ...options.env,
  });
  const app = await createApp(await prepareRuntime(config), options.extra);
  await recordContract(app);
  return app;
}

/** A connection as the schema owner, for factories that write test data. */
export async function ownerDataSource(faults = false): Promise<DataSource> {
  const url = assertTestDatabase(process.env[faults ? 'TEST_FAULTS_MIGRATION_DATABASE_URL' : 'TEST_MIGRATION_DATABASE_URL']);
  return new DataSource(dataSourceOptions(url, { poolSize: 2, applicationName: 'tests-owner' })).initialize();
}

/** A connection as the API role, exactly as the service connects. */
export async function apiDataSource(): Promise<DataSource> {
  return new DataSource(
    dataSourceOptions(assertTestDatabase(process.env.TEST_DATABASE_URL), { poolSize: 2, applicationName: 'tests-api' }),
  ).initialize();
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Backends waiting for a lock on `relation` (a table a test locked to hold statements inside the database). */
export async function lockWaiters(db: DataSource, relation: string): Promise<number> {
  const [{ n }]: Array<{ n: number }> = await db.query(
    `SELECT count(*)::int AS n FROM pg_locks WHERE relation = $1::regclass AND NOT granted`,
    [relation],
  );
  return n;
}

/** Whether `server` holds no connection any more (a client's close, seen by the server). */
export function serverIdle(server: Server): Promise<boolean> {
  return new Promise((resolve) => server.getConnections((_error, count) => resolve(count === 0)));
}

/**
 * Compacts the change log of the worker's database up to `cutoff` (a SQL expression), as many
 * batches of `batch` as it takes. Compaction reads the whole log, every file's entries before
 * this one (thousands from capture-interleavings alone), past the test pool's 5 s statement budget
 * on a busy run: the statements get 120 s of their own. What is asserted is what compaction
 * leaves, not how fast it runs (bench:capture measures that).
 */
export async function compactEverything(db: DataSource, cutoff: string, batch: number): Promise<void> {
  await db.transaction(async (m) => {
    await m.query(`SET LOCAL statement_timeout = '120s'`);
    while ((await m.query(`SELECT app_compact_changes(${cutoff}, ${batch}) AS merged`))[0].merged > 0);
  });
}

/** Polls `check` every 100 ms until it holds; the milliseconds it took, or an error after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await sleep(100);
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}

/**
 * For the enclosing describe: an app that believes `X-Forwarded-For` from loopback
 * (`TRUST_PROXY=loopback`), so a test can present any client address. Call `http()` inside tests.
 */
export function appBehindTrustedProxy(): { http: () => ReturnType<typeof request> } {
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  beforeAll(async () => {
    app = await createTestApp({ env: { TRUST_PROXY: 'loopback' } });
    http = request(app.getHttpServer());
  });
  afterAll(() => app.close());
  return { http: () => http };
}
