import 'reflect-metadata';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { IsIn, IsInt, IsOptional, Matches, Max, Min, ValidateBy, ValidationOptions } from 'class-validator';
import { Type } from 'class-transformer';

const POSTGRES_URL = /^postgres(ql)?:\/\/[^\s]+$/;
const REDIS_URL = /^rediss?:\/\/[^\s]+$/;
const QUOTA = /^[1-9]\d{0,8}\/[1-9]\d{0,6}$/;
const DURATION = /^[1-9]\d{0,8}[smhd]?$/;
/** One PEM block; JWT_PUBLIC_KEYS holds several, concatenated. */
export const PEM_BLOCK = /-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g;

function isRsaPrivateKey(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return createPrivateKey(value).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

function isRsaPublicKeyList(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const blocks = value.match(PEM_BLOCK);
  if (!blocks) return false;
  try {
    return blocks.every((b) => createPublicKey(b).asymmetricKeyType === 'rsa');
  } catch {
    return false;
  }
}

/** Express's named ranges, or comma-separated addresses and CIDRs. */
function isTrustProxy(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return value.split(',').every((part) => {
    const p = part.trim();
    if (['loopback', 'linklocal', 'uniquelocal'].includes(p)) return true;
    if (p.includes('/')) {
      try {
        ipaddr.parseCIDR(p);
        return true;
      } catch {
        return false;
      }
    }
    return ipaddr.isValid(p);
  });
}

/** Where integrators reach the service: the OpenAPI document's server and token URL. */
function isPublicBaseUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return ['http:', 'https:'].includes(url.protocol) && !url.search && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** An integer variable within bounds; `unit` only words the message. */
function IntegerIn(min: number, max: number, unit = '') {
  const message = `must be an integer${unit ? ` number of${unit}` : ''} from ${min} to ${max}`;
  return (target: object, key: string) => {
    Type(() => Number)(target, key);
    IsInt({ message })(target, key);
    Min(min, { message })(target, key);
    Max(max, { message })(target, key);
  };
}

function Satisfies(test: (v: unknown) => boolean, message: string, options?: ValidationOptions) {
  return ValidateBy({ name: 'satisfies', validator: { validate: test, defaultMessage: () => message } }, options);
}

/**
 * The environment as the service reads it: every variable of API-DECISIONS.md plus the
 * operational knobs. Messages name the variable and say what is expected, never the value.
 */
export class EnvironmentVariables {
  @IsOptional()
  @IsIn(['development', 'production', 'test'], { message: 'must be development, production or test' })
  NODE_ENV?: string;

  @IsOptional()
  @IntegerIn(0, 65535)
  PORT?: number;

  /** The Prometheus port: a number, or `off` for no metrics at all. */
  @IsOptional()
  @Matches(/^(off|\d{1,5})$/, { message: 'must be a port number or off' })
  METRICS_PORT?: string;

  /** The address the metrics port listens on: loopback unless a deployment opens it (Kubernetes: 0.0.0.0 behind its NetworkPolicy). */
  @IsOptional()
  @ValidateBy({
    name: 'ipAddress',
    validator: {
      validate: (v) => typeof v === 'string' && (isIP(v) !== 0 || v === 'localhost'),
      defaultMessage: () => 'must be an IP address (such as 127.0.0.1, 0.0.0.0 or ::) or localhost',
    },
  })
  METRICS_HOST?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http:// or https:// URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IsOptional()
  @Matches(POSTGRES_URL, { message: 'must be a postgres:// connection URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @Matches(POSTGRES_URL, { message: 'must be a postgres:// connection URL' })
  MIGRATION_DATABASE_URL?: string;

  @IsOptional()
  @Matches(POSTGRES_URL, { message: 'must be a postgres:// connection URL' })
  AUDIT_DATABASE_URL?: string;

  @IsOptional()
  @Matches(POSTGRES_URL, { message: 'must be a postgres:// connection URL' })
  AUDIT_MIGRATION_DATABASE_URL?: string;

  @IsOptional()
  @Matches(/^\S+$/, { message: 'must be a directory path' })
  DATA_DIR?: string;

  @IsOptional()
  @Matches(REDIS_URL, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @IsOptional()
  @IntegerIn(50, 10000, ' milliseconds')
  REDIS_TIMEOUT_MS?: number;

  @IsOptional()
  @Satisfies(isRsaPrivateKey, 'must be a PEM-encoded RSA private key')
  JWT_PRIVATE_KEY?: string;

  @IsOptional()
  @Satisfies(isRsaPublicKeyList, 'must be one or more PEM-encoded RSA public keys')
  JWT_PUBLIC_KEYS?: string;

  @IsOptional()
  @Matches(/^\S{32,}$/, { message: 'must be at least 32 characters without spaces' })
  CURSOR_SECRET?: string;

  @IsOptional()
  @IntegerIn(1, 86400, ' seconds')
  TOKEN_TTL_SECONDS?: number;

  @IsOptional()
  @IntegerIn(0, 31536000, ' seconds')
  SECRET_GRACE_SECONDS?: number;

  @IsOptional()
  @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 600/60' })
  RATE_LIMIT_CLIENT?: string;

  @IsOptional()
  @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 1800/60' })
  RATE_LIMIT_COMPANY?: string;

  @IsOptional()
  @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 300/60' })
  RATE_LIMIT_EMAIL_CONTENT?: string;

  @IsOptional()
  @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 300/60' })
  RATE_LIMIT_CHAT_CONTENT?: string;

  /** Export streams (`GET /v1/export`) per client. */
  @IsOptional()
  @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 20/3600' })
  RATE_LIMIT_EXPORT?: string;

  @IsOptional()
  @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 60/60' })
  RATE_LIMIT_TOKEN?: string;

  /** Failed authentications (401) per client address; past it the address's failures (and its token requests, before the secret is checked) are answered 429, each held a second. */
  @IsOptional()
  @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 100/60' })
  RATE_LIMIT_UNAUTHENTICATED?: string;

  @IsOptional()
  @Satisfies(isTrustProxy, 'must be comma-separated addresses or CIDRs, or loopback, linklocal, uniquelocal')
  TRUST_PROXY?: string;

  @IsOptional()
  @Satisfies(isPublicBaseUrl, 'must be an absolute http(s) URL without query or fragment, e.g. https://api.example.com')
  PUBLIC_BASE_URL?: string;

  @IsOptional()
  @IntegerIn(10, 60000, ' milliseconds')
  AUDIT_TIMEOUT_MS?: number;

  /** Rows of the trail one `GET /v1/audit-events` page may examine; past that the page is short, with has_more and a cursor. */
  @IsOptional()
  @IntegerIn(100, 1_000_000)
  AUDIT_SCAN_ROWS?: number;

  /** Connections of the audit reader (`GET /v1/audit-events`); one company holds one at a time. */
  @IsOptional()
  @IntegerIn(1, 50)
  AUDIT_READ_POOL_SIZE?: number;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    message: 'must be one of fatal, error, warn, info, debug, trace, silent',
  })
  LOG_LEVEL?: string;

  @IsOptional()
  @IsIn(['json', 'pretty'], { message: 'must be json or pretty' })
  LOG_FORMAT?: string;

  @IsOptional()
  @IntegerIn(1, 200)
  DB_POOL_SIZE?: number;

  /** The part of DB_POOL_SIZE one company may hold at once (rounded up, at least one connection); its further requests wait their turn. */
  @IsOptional()
  @Type(() => Number)
  @Satisfies((v) => typeof v === 'number' && v > 0 && v <= 1, 'must be a fraction of DB_POOL_SIZE greater than 0 and at most 1 (such as 0.5)')
  DB_POOL_COMPANY_SHARE?: number;

  /** Heavy work (an `include` part of 10 units or more: a transcript, messages; a filtered audit-trail read) running at once in an instance, one per company; the rest waits its turn. */
  @IsOptional()
  @IntegerIn(1, 200)
  HEAVY_REQUESTS_MAX?: number;

  /** A list page stops before the item that would take its body past this many bytes (always one item at least). */
  @IsOptional()
  @IntegerIn(1024, 268_435_456, ' bytes')
  PAGE_BYTES_MAX?: number;

  /** Export streams one company may run at once (more: 429 with Retry-After). */
  @IsOptional()
  @IntegerIn(1, 100)
  EXPORT_CONCURRENCY?: number;

  /** An export stream whose reader takes no byte for this long is cut. */
  @IsOptional()
  @IntegerIn(1, 3600, ' seconds')
  EXPORT_IDLE_SECONDS?: number;

  /** Connections of the export streams' own pool: also how many exports one instance runs at once, across companies. */
  @IsOptional()
  @IntegerIn(1, 100)
  EXPORT_POOL_SIZE?: number;

  /** An export stream still running this long is cut (the client resumes with after=). */
  @IsOptional()
  @IntegerIn(1, 86_400, ' seconds')
  EXPORT_MAX_SECONDS?: number;

  /** An export stream whose reader accepts fewer bytes than this per minute (after its first window) is cut; 0: no minimum. */
  @IsOptional()
  @IntegerIn(0, 1_073_741_824, ' bytes')
  EXPORT_MIN_BYTES_PER_MINUTE?: number;

  /** The window the minimum rate is measured over (its minimum: EXPORT_MIN_BYTES_PER_MINUTE scaled to the window). */
  @IsOptional()
  @IntegerIn(1, 3600, ' seconds')
  EXPORT_RATE_WINDOW_SECONDS?: number;

  /** Connections of the schema owner's pool in the worker and the admin commands. */
  @IsOptional()
  @IntegerIn(1, 200)
  OWNER_POOL_SIZE?: number;

  @IsOptional()
  @IntegerIn(100, 600000, ' milliseconds')
  DB_STATEMENT_TIMEOUT_MS?: number;

  @IsOptional()
  @IntegerIn(100, 60000, ' milliseconds')
  DB_CONNECT_TIMEOUT_MS?: number;

  @IsOptional()
  @IntegerIn(0, 1000)
  DB_MAX_PREPARED_STATEMENTS?: number;

  @IsOptional()
  @IntegerIn(1, 1_000_000)
  AUDIT_QUEUE_LIMIT?: number;

  @IsOptional()
  @IntegerIn(1, 36500, ' days')
  AUDIT_RETENTION_DAYS?: number;

  /** Change-log entries older than this are compacted to the newest per object: `<n>` seconds, or `<n>s|m|h|d`. */
  @IsOptional()
  @Matches(DURATION, { message: 'must be a duration such as 7d, 12h, 30m or 3600 (seconds), at least 1 second' })
  CHANGES_COMPACT_AFTER?: string;

  /** How often each instance tries to compact the change log (one at a time across instances); 0: never in the background. */
  @IsOptional()
  @IntegerIn(0, 86400, ' seconds')
  CHANGES_COMPACT_INTERVAL_SECONDS?: number;

  @IsOptional()
  @IntegerIn(1, 86400, ' seconds')
  DB_CONNECTION_LIFETIME_SECONDS?: number;

  @IsOptional()
  @IntegerIn(1, 1_000_000_000)
  DB_CONNECTION_MAX_USES?: number;

  @IsOptional()
  @IntegerIn(0, 120000, ' milliseconds')
  SHUTDOWN_DELAY_MS?: number;

  @IsOptional()
  @IntegerIn(1000, 600000, ' milliseconds')
  SHUTDOWN_GRACE_MS?: number;

  @IsOptional()
  @IntegerIn(500, 120000, ' milliseconds')
  HTTP_HEADERS_TIMEOUT_MS?: number;

  @IsOptional()
  @IntegerIn(1000, 600000, ' milliseconds')
  HTTP_REQUEST_TIMEOUT_MS?: number;

  @IsOptional()
  @IntegerIn(1000, 600000, ' milliseconds')
  HTTP_KEEP_ALIVE_TIMEOUT_MS?: number;

  @IsOptional()
  @IsIn(['0', '1'], { message: 'must be 0 or 1' })
  DEMO_ACTIVITY?: string;

  /** Encrypts webhook signing secrets at rest (any text of 32 characters or more; generated in DATA_DIR outside production). */
  @IsOptional()
  @Matches(/^\S{32,}$/, { message: 'must be at least 32 characters without spaces' })
  WEBHOOK_SECRET_KEY?: string;

  /** Seconds before each retry of a failed delivery, comma-separated (each ±20% jitter). */
  @IsOptional()
  @Matches(/^[1-9]\d{0,6}(,[1-9]\d{0,6}){0,49}$/, { message: 'must be 1 to 50 comma-separated whole numbers of seconds, e.g. 1,2,4,8' })
  WEBHOOK_RETRY_SCHEDULE?: string;

  /** Plain http and private, loopback or link-local destinations (development only). */
  @IsOptional()
  @IsIn(['0', '1'], { message: 'must be 0 or 1' })
  WEBHOOK_ALLOW_PRIVATE?: string;

  /** Run the worker (every background loop) in this process (default 1, or 0 with NODE_ENV=production, where `npm run worker` runs it). */
  @IsOptional()
  @IsIn(['0', '1'], { message: 'must be 0 or 1' })
  WORKER?: string;

  /** WORKER's earlier name, still read. */
  @IsOptional()
  @IsIn(['0', '1'], { message: 'must be 0 or 1' })
  WEBHOOK_WORKER?: string;

  /** How long a rotated-out signing secret keeps signing. */
  @IsOptional()
  @Matches(DURATION, { message: 'must be a duration such as 24h, 30m or 3600 (seconds), at least 1 second' })
  WEBHOOK_SECRET_OVERLAP?: string;

  /** How long one attempt may take (the contract: a 2xx within 10 s); shorter in tests. */
  @IsOptional()
  @IntegerIn(200, 10000, ' milliseconds')
  WEBHOOK_TIMEOUT_MS?: number;

  /** How long a worker may hold a job before another worker takes it over (a crashed worker's jobs). */
  @IsOptional()
  @IntegerIn(2, 3600, ' seconds')
  WEBHOOK_EXPIRE_SECONDS?: number;

  /** How often the dispatcher looks for new changes when idle. */
  @IsOptional()
  @IntegerIn(10, 60000, ' milliseconds')
  WEBHOOK_POLL_MS?: number;

  /** Events per batch of one endpoint, and how many of them are sent at once. */
  @IsOptional()
  @IntegerIn(1, 100)
  WEBHOOK_BATCH_SIZE?: number;

  @IsOptional()
  @IntegerIn(1, 256)
  WEBHOOK_CONCURRENCY?: number;

  /** Batches (each one endpoint's) one worker sends at once. */
  @IsOptional()
  @IntegerIn(1, 1024)
  WEBHOOK_JOB_SLOTS?: number;

  /** Delivery records older than this many days are deleted. */
  @IsOptional()
  @IntegerIn(1, 3650, ' days')
  WEBHOOK_RETENTION_DAYS?: number;
}
