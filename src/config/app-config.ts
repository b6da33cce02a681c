import { resolve } from 'node:path';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { RATE_LIMIT_POLICIES, RateLimitPolicyName } from '../contract/rate-limit-policies';
import { EnvironmentVariables } from './environment';

export interface Quota {
  limit: number;
  windowSeconds: number;
}

const DEFAULT_QUOTAS: Record<RateLimitPolicyName, string> = {
  client: '600/60',
  company: '1800/60',
  email_content: '300/60',
  chat_content: '300/60',
  export: '20/3600',
  webhook_admin: '60/60',
  token: '60/60',
};

const QUOTA_VARIABLES: Record<RateLimitPolicyName, keyof EnvironmentVariables> = {
  client: 'RATE_LIMIT_CLIENT',
  company: 'RATE_LIMIT_COMPANY',
  email_content: 'RATE_LIMIT_EMAIL_CONTENT',
  chat_content: 'RATE_LIMIT_CHAT_CONTENT',
  export: 'RATE_LIMIT_EXPORT',
  webhook_admin: 'RATE_LIMIT_WEBHOOK_ADMIN',
  token: 'RATE_LIMIT_TOKEN',
};

export interface WebhookSettings {
  secretKey?: string;
  /** Seconds before each retry (jitter applied when scheduled). */
  retrySchedule: number[];
  allowPrivate: boolean;
  secretOverlapSeconds: number;
  timeoutMs: number;
  expireSeconds: number;
  pollMs: number;
  batchSize: number;
  concurrency: number;
  /** Batches one worker sends at once. */
  jobSlots: number;
  retentionDays: number;
  /** Endpoints one company may have (`409 WEBHOOK_ENDPOINT_LIMIT` past it). */
  endpointsMax: number;
  /** The most events one replay through the API queues. */
  replayMax: number;
}

/** The default retry schedule: 12 retries over about 100 hours (80 at the least with jitter), the contract's "at least 72 h". */
export const DEFAULT_RETRY_SCHEDULE = [60, 300, 900, 1800, 3600, 7200, 14400, 28800, 43200, 86400, 86400, 86400];

/** Raised for configuration that cannot start the service; its message is the one line printed. */
export class ConfigError extends Error {
  /** The CLI's error code for it (`{"error": {"code", "message"}}`). */
  readonly code = 'INVALID_CONFIGURATION';
}

/**
 * The validated, typed configuration. Built once from the environment; nothing else in the
 * service reads `process.env`. Never log it: it holds secrets.
 */
export class AppConfig {
  readonly production: boolean;
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly port: number;
  /** Where Prometheus scrapes `/metrics`; undefined with METRICS_PORT=off (nothing is recorded). */
  readonly metricsPort?: number;
  /** The address the metrics port listens on (METRICS_HOST): loopback unless set. */
  readonly metricsHost: string;
  /** The worker: whether it runs in the API process, and where `npm run worker` serves its metrics (METRICS_PORT, else 9465). */
  readonly worker: { inProcess: boolean; metricsPort?: number };
  /** Where integrators reach the service (no trailing slash): the OpenAPI server and token URL. */
  readonly publicBaseUrl: string;
  readonly dataDir: string;
  readonly logLevel: string;
  /** `json` (one object per line) unless LOG_FORMAT says otherwise or stdout is a terminal (`pretty`). */
  readonly logFormat: 'json' | 'pretty';
  readonly database: {
    /** API role connection; unset means embedded PostgreSQL under `dataDir`. */
    url?: string;
    migrationUrl?: string;
    auditUrl?: string;
    /** Owner of the audit table in a separate audit database (migrations only). */
    auditMigrationUrl?: string;
    poolSize: number;
    /** The fraction of `poolSize` one company may hold at once (src/database/fair-gate.ts). */
    companyShare: number;
    /** Heavy requests (PoolGate.heavy) running at once: one per company, this many in all. */
    heavyRequestsMax: number;
    statementTimeoutMs: number;
    connectTimeoutMs: number;
    idleInTransactionTimeoutMs: number;
    /** Named prepared statements kept per connection (least recently used ones are deallocated); 0: none, unnamed statements only. */
    maxPreparedStatements: number;
    /** A pooled connection is closed and replaced after this long (its backend's memory is returned). */
    connectionLifetimeSeconds: number;
    /** ... and after this many uses. */
    connectionMaxUses: number;
    /** The schema owner's pool for the worker and the admin side (src/database/owner-pool.ts). */
    owner: { poolSize: number; statementTimeoutMs: number; idleInTransactionTimeoutMs: number };
    /** Hot standbys the `/v1` reads run on (src/database/read-replicas.ts); none: every read on the primary. */
    replicas: { urls: string[]; maxLagSeconds: number; revocationWaitSeconds: number; checkIntervalMs: number };
  };
  /** A list page's byte budget (PAGE_BYTES_MAX): it stops before the item that would pass it. */
  readonly pageBytesMax: number;
  /**
   * The export stream: at most `exportConcurrency` at once per company and `poolSize` at once in
   * this instance (its own connections); a reader idle `exportIdleSeconds` is cut, as is a stream
   * older than `maxSeconds`, or one whose reader accepted fewer than `minBytesPerMinute` (scaled
   * to the window) in a window of `rateWindowSeconds` after the first.
   */
  readonly exports: {
    exportConcurrency: number;
    exportIdleSeconds: number;
    poolSize: number;
    maxSeconds: number;
    minBytesPerMinute: number;
    rateWindowSeconds: number;
  };
  readonly redisUrl?: string;
  /** How long a rate-limit store command may take before the request answers 503. */
  readonly redisTimeoutMs: number;
  readonly jwt: { privateKey?: string; publicKeys?: string; ttlSeconds: number };
  readonly cursorSecret?: string;
  readonly secretGraceSeconds: number;
  readonly rateLimits: Record<RateLimitPolicyName, Quota>;
  /** Failed authentications per client address (RATE_LIMIT_UNAUTHENTICATED). */
  readonly unauthenticatedLimit: Quota;
  readonly trustProxy?: string;
  readonly auditTimeoutMs: number;
  /** The audit reader (`GET /v1/audit-events`): rows a page may examine, and its connections (a company holds one at a time). */
  readonly auditRead: { scanRows: number; poolSize: number };
  /** Audit rows that may wait to be written; past that a read answers 503 AUDIT_UNAVAILABLE at once. */
  readonly auditQueueLimit: number;
  /** Audit partitions wholly older than this many days are dropped by `audit:prune`. */
  readonly auditRetentionDays: number;
  /** The change log: entries older than `compactAfterSeconds` are compacted, every `compactIntervalSeconds` (0: never in the background). */
  readonly changes: { compactAfterSeconds: number; compactIntervalSeconds: number };
  readonly shutdownDelayMs: number;
  /** After the delay, how long in-flight requests may take before the remaining connections are cut. */
  readonly shutdownGraceMs: number;
  /** Node's HTTP server limits: a client slower than these is cut off (see http-server.ts). */
  readonly http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  /** Demo mode (the embedded database) writes like a capture system into the demo company while it serves. */
  readonly demoActivity: boolean;
  readonly webhooks: WebhookSettings;

  constructor(init: Omit<AppConfig, never>) {
    Object.assign(this, init);
  }
}

/** Reads and validates the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const vars = plainToInstance(EnvironmentVariables, present, { excludeExtraneousValues: false });
  const errors = validateSync(vars, { stopAtFirstError: true });
  if (errors.length > 0) {
    const first = errors[0];
    const message = Object.values(first.constraints ?? {})[0] ?? 'is invalid';
    throw new ConfigError(`Invalid configuration: ${first.property} ${message}`);
  }

  const nodeEnv = (vars.NODE_ENV ?? 'development') as AppConfig['nodeEnv'];
  const production = nodeEnv === 'production';
  if (production) {
    for (const required of ['DATABASE_URL', 'JWT_PRIVATE_KEY', 'CURSOR_SECRET'] as const) {
      if (!vars[required]) throw new ConfigError(`Invalid configuration: ${required} is required when NODE_ENV=production`);
    }
  }
  if (!vars.DATABASE_URL) {
    for (const dependent of [
      'MIGRATION_DATABASE_URL',
      'AUDIT_DATABASE_URL',
      'AUDIT_MIGRATION_DATABASE_URL',
      'DATABASE_REPLICA_URLS',
    ] as const) {
      if (vars[dependent]) throw new ConfigError(`Invalid configuration: ${dependent} requires DATABASE_URL`);
    }
  }

  const rateLimits = Object.fromEntries(
    RATE_LIMIT_POLICIES.map((policy) => [policy, quotaOf(String(vars[QUOTA_VARIABLES[policy]] ?? DEFAULT_QUOTAS[policy]))]),
  ) as Record<RateLimitPolicyName, Quota>;

  return new AppConfig({
    production,
    nodeEnv,
    port: vars.PORT ?? 3000,
    metricsPort: metricsPort(vars.METRICS_PORT),
    metricsHost: vars.METRICS_HOST ?? '127.0.0.1',
    worker: { inProcess: workerInProcess(vars, production), metricsPort: metricsPort(vars.METRICS_PORT, 9465) },
    publicBaseUrl: (vars.PUBLIC_BASE_URL ?? `http://localhost:${vars.PORT ?? 3000}`).replace(/\/+$/, ''),
    dataDir: resolve(vars.DATA_DIR ?? '.data'),
    logLevel: vars.LOG_LEVEL ?? 'info',
    logFormat: (vars.LOG_FORMAT as 'json' | 'pretty' | undefined) ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    database: {
      url: vars.DATABASE_URL,
      migrationUrl: vars.MIGRATION_DATABASE_URL ?? vars.DATABASE_URL,
      auditUrl: vars.AUDIT_DATABASE_URL ?? vars.DATABASE_URL,
      auditMigrationUrl: vars.AUDIT_MIGRATION_DATABASE_URL ?? vars.AUDIT_DATABASE_URL ?? vars.MIGRATION_DATABASE_URL ?? vars.DATABASE_URL,
      poolSize: vars.DB_POOL_SIZE ?? 10,
      companyShare: vars.DB_POOL_COMPANY_SHARE ?? 0.5,
      heavyRequestsMax: vars.HEAVY_REQUESTS_MAX ?? 1,
      statementTimeoutMs: vars.DB_STATEMENT_TIMEOUT_MS ?? 5000,
      connectTimeoutMs: vars.DB_CONNECT_TIMEOUT_MS ?? 2000,
      idleInTransactionTimeoutMs: 10_000,
      owner: { poolSize: vars.OWNER_POOL_SIZE ?? 10, statementTimeoutMs: 30_000, idleInTransactionTimeoutMs: 60_000 },
      maxPreparedStatements: vars.DB_MAX_PREPARED_STATEMENTS ?? 64,
      connectionLifetimeSeconds: vars.DB_CONNECTION_LIFETIME_SECONDS ?? 1800,
      connectionMaxUses: vars.DB_CONNECTION_MAX_USES ?? 10_000,
      replicas: {
        urls: (vars.DATABASE_REPLICA_URLS ?? '')
          .split(',')
          .map((url) => url.trim())
          .filter(Boolean),
        maxLagSeconds: vars.REPLICA_MAX_LAG_SECONDS ?? 5,
        revocationWaitSeconds: vars.REPLICA_REVOCATION_WAIT_SECONDS ?? 30,
        checkIntervalMs: vars.REPLICA_CHECK_INTERVAL_MS ?? 1000,
      },
    },
    pageBytesMax: vars.PAGE_BYTES_MAX ?? 4 * 1024 * 1024,
    exports: {
      exportConcurrency: vars.EXPORT_CONCURRENCY ?? 2,
      exportIdleSeconds: vars.EXPORT_IDLE_SECONDS ?? 60,
      poolSize: vars.EXPORT_POOL_SIZE ?? 4,
      maxSeconds: vars.EXPORT_MAX_SECONDS ?? 900,
      minBytesPerMinute: vars.EXPORT_MIN_BYTES_PER_MINUTE ?? 65_536,
      rateWindowSeconds: vars.EXPORT_RATE_WINDOW_SECONDS ?? 60,
    },
    redisUrl: vars.REDIS_URL,
    redisTimeoutMs: vars.REDIS_TIMEOUT_MS ?? 500,
    jwt: { privateKey: vars.JWT_PRIVATE_KEY, publicKeys: vars.JWT_PUBLIC_KEYS, ttlSeconds: vars.TOKEN_TTL_SECONDS ?? 3600 },
    cursorSecret: vars.CURSOR_SECRET,
    secretGraceSeconds: vars.SECRET_GRACE_SECONDS ?? 604_800,
    rateLimits,
    unauthenticatedLimit: quotaOf(vars.RATE_LIMIT_UNAUTHENTICATED ?? '100/60'),
    trustProxy: vars.TRUST_PROXY,
    auditTimeoutMs: vars.AUDIT_TIMEOUT_MS ?? 2000,
    auditRead: { scanRows: vars.AUDIT_SCAN_ROWS ?? 10_000, poolSize: vars.AUDIT_READ_POOL_SIZE ?? 4 },
    auditQueueLimit: vars.AUDIT_QUEUE_LIMIT ?? 10_000,
    auditRetentionDays: vars.AUDIT_RETENTION_DAYS ?? 365,
    changes: {
      compactAfterSeconds: durationSeconds(vars.CHANGES_COMPACT_AFTER ?? '7d'),
      compactIntervalSeconds: vars.CHANGES_COMPACT_INTERVAL_SECONDS ?? 600,
    },
    shutdownDelayMs: vars.SHUTDOWN_DELAY_MS ?? (production ? 5000 : 0),
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS ?? 20_000,
    http: {
      headersTimeoutMs: vars.HTTP_HEADERS_TIMEOUT_MS ?? 10_000,
      requestTimeoutMs: vars.HTTP_REQUEST_TIMEOUT_MS ?? 30_000,
      keepAliveTimeoutMs: vars.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? 65_000,
    },
    demoActivity: vars.DEMO_ACTIVITY === '1',
    webhooks: webhookSettings(vars),
  });
}

function webhookSettings(vars: EnvironmentVariables): WebhookSettings {
  const timeoutMs = vars.WEBHOOK_TIMEOUT_MS ?? 10_000;
  const expireSeconds = vars.WEBHOOK_EXPIRE_SECONDS ?? 120;
  // A job is taken over after expireSeconds: it must outlast at least one attempt and its bookkeeping.
  if (expireSeconds * 1000 < 2 * timeoutMs + 1000) {
    throw new ConfigError(
      `Invalid configuration: WEBHOOK_EXPIRE_SECONDS must be at least ${Math.ceil((2 * timeoutMs + 1000) / 1000)} (twice WEBHOOK_TIMEOUT_MS and a second)`,
    );
  }
  return {
    secretKey: vars.WEBHOOK_SECRET_KEY,
    retrySchedule: vars.WEBHOOK_RETRY_SCHEDULE ? vars.WEBHOOK_RETRY_SCHEDULE.split(',').map(Number) : DEFAULT_RETRY_SCHEDULE,
    allowPrivate: vars.WEBHOOK_ALLOW_PRIVATE === '1',
    secretOverlapSeconds: durationSeconds(vars.WEBHOOK_SECRET_OVERLAP ?? '24h'),
    timeoutMs,
    expireSeconds,
    pollMs: vars.WEBHOOK_POLL_MS ?? 100,
    batchSize: vars.WEBHOOK_BATCH_SIZE ?? 100,
    concurrency: vars.WEBHOOK_CONCURRENCY ?? 16,
    jobSlots: vars.WEBHOOK_JOB_SLOTS ?? 32,
    retentionDays: vars.WEBHOOK_RETENTION_DAYS ?? 30,
    endpointsMax: vars.WEBHOOK_ENDPOINTS_MAX ?? 20,
    replayMax: vars.WEBHOOK_REPLAY_MAX ?? 10_000,
  };
}

/** `<n>` seconds, or `<n>s|m|h|d` (validated by the environment's DURATION pattern). */
function durationSeconds(text: string): number {
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[text.slice(-1)] ?? 1;
  return Number.parseInt(text, 10) * unit;
}

/** WORKER (or its earlier name WEBHOOK_WORKER; both set must agree): 1 outside production unless said. */
function workerInProcess(vars: EnvironmentVariables, production: boolean): boolean {
  if (vars.WORKER !== undefined && vars.WEBHOOK_WORKER !== undefined && vars.WORKER !== vars.WEBHOOK_WORKER) {
    throw new ConfigError('Invalid configuration: WORKER and WEBHOOK_WORKER (its earlier name) disagree; set WORKER only');
  }
  return (vars.WORKER ?? vars.WEBHOOK_WORKER ?? (production ? '0' : '1')) === '1';
}

/**
 * METRICS_PORT unless set: 9464 (the port Prometheus exporters of OpenTelemetry use) for the API,
 * 9465 for a worker of its own, so both run on one host; `off` turns metrics off.
 */
function metricsPort(value: string | undefined, fallback = 9464): number | undefined {
  if (value === 'off') return undefined;
  const port = Number(value ?? fallback);
  if (port > 65535) throw new ConfigError('METRICS_PORT must be a port number or off');
  return port;
}

/** `<quota>/<window seconds>`, as validated (environment.ts). */
function quotaOf(text: string): Quota {
  const [limit, windowSeconds] = text.split('/').map(Number);
  return { limit, windowSeconds };
}
