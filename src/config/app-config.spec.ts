import { generateKeyPairSync } from 'node:crypto';
import { ConfigError, loadConfig } from './app-config';

function errorOf(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('configuration was accepted');
}

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.production).toBe(false);
    expect(config.dataDir).toMatch(/\.data$/);
    expect(config.database.url).toBeUndefined();
    expect(config.jwt.ttlSeconds).toBe(3600);
    expect(config.secretGraceSeconds).toBe(604800);
    expect(config.auditTimeoutMs).toBe(2000);
    expect(config.redisUrl).toBeUndefined();
    expect(config.redisTimeoutMs).toBe(500);
    expect(config.demoActivity).toBe(false);
    expect(config.database).toMatchObject({ poolSize: 10, companyShare: 0.5 });
    expect(config.exports).toEqual({
      exportConcurrency: 2,
      exportIdleSeconds: 60,
      poolSize: 4,
      maxSeconds: 900,
      minBytesPerMinute: 65_536,
      rateWindowSeconds: 60,
    });
    expect(config.rateLimits).toEqual({
      client: { limit: 600, windowSeconds: 60 },
      company: { limit: 1800, windowSeconds: 60 },
      email_content: { limit: 300, windowSeconds: 60 },
      chat_content: { limit: 300, windowSeconds: 60 },
      export: { limit: 20, windowSeconds: 3600 },
      webhook_admin: { limit: 60, windowSeconds: 60 },
      token: { limit: 60, windowSeconds: 60 },
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://api@db/app',
      MIGRATION_DATABASE_URL: 'postgres://owner@db/app',
      AUDIT_DATABASE_URL: 'postgresql://audit@db2/audit',
      DATA_DIR: '/tmp/x',
      REDIS_URL: 'redis://localhost:6379',
      REDIS_TIMEOUT_MS: '250',
      JWT_PRIVATE_KEY: privatePem,
      JWT_PUBLIC_KEYS: publicPem + publicPem,
      CURSOR_SECRET: 'c'.repeat(32),
      TOKEN_TTL_SECONDS: '60',
      SECRET_GRACE_SECONDS: '5',
      RATE_LIMIT_CLIENT: '10/1',
      RATE_LIMIT_COMPANY: '20/2',
      RATE_LIMIT_EMAIL_CONTENT: '30/3',
      RATE_LIMIT_CHAT_CONTENT: '40/4',
      RATE_LIMIT_TOKEN: '50/5',
      TRUST_PROXY: 'loopback, 10.0.0.0/8, ::1',
      AUDIT_TIMEOUT_MS: '500',
      AUDIT_SCAN_ROWS: '5000',
      AUDIT_READ_POOL_SIZE: '6',
      RATE_LIMIT_UNAUTHENTICATED: '30/10',
      PUBLIC_BASE_URL: 'https://api.example.com/conversations/',
      DEMO_ACTIVITY: '1',
      DB_POOL_SIZE: '4',
      DB_POOL_COMPANY_SHARE: '0.25',
      EXPORT_CONCURRENCY: '3',
      EXPORT_IDLE_SECONDS: '30',
      EXPORT_POOL_SIZE: '8',
      EXPORT_MAX_SECONDS: '120',
      EXPORT_MIN_BYTES_PER_MINUTE: '0',
      EXPORT_RATE_WINDOW_SECONDS: '10',
    });
    expect(config.port).toBe(8080);
    expect(config.publicBaseUrl).toBe('https://api.example.com/conversations');
    expect(config.database).toMatchObject({
      url: 'postgres://api@db/app',
      migrationUrl: 'postgres://owner@db/app',
      auditUrl: 'postgresql://audit@db2/audit',
      poolSize: 4,
      companyShare: 0.25,
    });
    expect(config.dataDir).toBe('/tmp/x');
    expect(config.redisUrl).toBe('redis://localhost:6379');
    expect(config.redisTimeoutMs).toBe(250);
    expect(config.jwt).toEqual({ privateKey: privatePem, publicKeys: publicPem + publicPem, ttlSeconds: 60 });
    expect(config.secretGraceSeconds).toBe(5);
    expect(config.rateLimits.token).toEqual({ limit: 50, windowSeconds: 5 });
    expect(config.rateLimits.chat_content).toEqual({ limit: 40, windowSeconds: 4 });
    expect(config.trustProxy).toBe('loopback, 10.0.0.0/8, ::1');
    expect(config.auditTimeoutMs).toBe(500);
    expect(config.auditRead).toEqual({ scanRows: 5000, poolSize: 6 });
    expect(config.unauthenticatedLimit).toEqual({ limit: 30, windowSeconds: 10 });
    expect(loadConfig({}).auditRead).toEqual({ scanRows: 10_000, poolSize: 4 });
    expect(loadConfig({}).unauthenticatedLimit).toEqual({ limit: 100, windowSeconds: 60 });
    expect(config.demoActivity).toBe(true);
    expect(config.exports).toEqual({
      exportConcurrency: 3,
      exportIdleSeconds: 30,
      poolSize: 8,
      maxSeconds: 120,
      minBytesPerMinute: 0,
      rateWindowSeconds: 10,
    });
    expect(loadConfig({ DEMO_ACTIVITY: '0' }).demoActivity).toBe(false);
  });

  it('defaults the migration and audit databases to DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://api@db/app' });
    expect(config.database.migrationUrl).toBe('postgres://api@db/app');
    expect(config.database.auditUrl).toBe('postgres://api@db/app');
  });

  it('defaults PUBLIC_BASE_URL to the local address on PORT', () => {
    expect(loadConfig({}).publicBaseUrl).toBe('http://localhost:3000');
    expect(loadConfig({ PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).port).toBe(3000);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer from 0 to 65535'],
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535'],
    [{ PORT: '1.5' }, 'PORT must be an integer from 0 to 65535'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be a postgres:// connection URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL must be a redis:// or rediss:// URL'],
    [{ REDIS_TIMEOUT_MS: '10' }, 'REDIS_TIMEOUT_MS must be an integer number of milliseconds from 50 to 10000'],
    [{ RATE_LIMIT_CLIENT: '600' }, 'RATE_LIMIT_CLIENT must be <quota>/<window seconds>'],
    [{ RATE_LIMIT_TOKEN: '0/60' }, 'RATE_LIMIT_TOKEN must be <quota>/<window seconds>'],
    [{ TOKEN_TTL_SECONDS: '0' }, 'TOKEN_TTL_SECONDS must be an integer number of seconds'],
    [{ CURSOR_SECRET: 'short' }, 'CURSOR_SECRET must be at least 32 characters'],
    [{ JWT_PRIVATE_KEY: 'not a key' }, 'JWT_PRIVATE_KEY must be a PEM-encoded RSA private key'],
    [
      { JWT_PRIVATE_KEY: ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
      'JWT_PRIVATE_KEY must be a PEM-encoded RSA private key',
    ],
    [{ JWT_PUBLIC_KEYS: 'nope' }, 'JWT_PUBLIC_KEYS must be one or more PEM-encoded RSA public keys'],
    [{ TRUST_PROXY: 'everyone' }, 'TRUST_PROXY must be comma-separated addresses or CIDRs'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY must be comma-separated addresses or CIDRs'],
    [{ PUBLIC_BASE_URL: 'api.example.com' }, 'PUBLIC_BASE_URL must be an absolute http(s) URL'],
    [{ PUBLIC_BASE_URL: 'https://api.example.com/?x=1' }, 'PUBLIC_BASE_URL must be an absolute http(s) URL'],
    [{ PUBLIC_BASE_URL: 'ftp://api.example.com' }, 'PUBLIC_BASE_URL must be an absolute http(s) URL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV must be development, production or test'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ AUDIT_TIMEOUT_MS: '-1' }, 'AUDIT_TIMEOUT_MS must be an integer number of milliseconds'],
    [{ AUDIT_SCAN_ROWS: '10' }, 'AUDIT_SCAN_ROWS must be an integer from 100 to 1000000'],
    [{ AUDIT_READ_POOL_SIZE: '0' }, 'AUDIT_READ_POOL_SIZE must be an integer from 1 to 50'],
    [{ RATE_LIMIT_UNAUTHENTICATED: '100' }, 'RATE_LIMIT_UNAUTHENTICATED must be <quota>/<window seconds>'],
    [{ MIGRATION_DATABASE_URL: 'postgres://o@db/app' }, 'MIGRATION_DATABASE_URL requires DATABASE_URL'],
    [{ DEMO_ACTIVITY: 'yes' }, 'DEMO_ACTIVITY must be 0 or 1'],
    [{ WEBHOOK_SECRET_KEY: 'short' }, 'WEBHOOK_SECRET_KEY must be at least 32 characters'],
    [{ WEBHOOK_RETRY_SCHEDULE: '1,,2' }, 'WEBHOOK_RETRY_SCHEDULE must be 1 to 50 comma-separated whole numbers of seconds'],
    [{ WEBHOOK_RETRY_SCHEDULE: '0' }, 'WEBHOOK_RETRY_SCHEDULE must be 1 to 50 comma-separated whole numbers of seconds'],
    [{ WEBHOOK_ALLOW_PRIVATE: 'true' }, 'WEBHOOK_ALLOW_PRIVATE must be 0 or 1'],
    [{ WEBHOOK_WORKER: 'on' }, 'WEBHOOK_WORKER must be 0 or 1'],
    [{ WEBHOOK_TIMEOUT_MS: '20000' }, 'WEBHOOK_TIMEOUT_MS must be an integer number of milliseconds from 200 to 10000'],
    [{ WEBHOOK_BATCH_SIZE: '101' }, 'WEBHOOK_BATCH_SIZE must be an integer from 1 to 100'],
    [{ DB_POOL_COMPANY_SHARE: '0' }, 'DB_POOL_COMPANY_SHARE must be a fraction of DB_POOL_SIZE greater than 0 and at most 1'],
    [{ DB_POOL_COMPANY_SHARE: '1.5' }, 'DB_POOL_COMPANY_SHARE must be a fraction of DB_POOL_SIZE greater than 0 and at most 1'],
    [{ DB_POOL_COMPANY_SHARE: 'half' }, 'DB_POOL_COMPANY_SHARE must be a fraction of DB_POOL_SIZE greater than 0 and at most 1'],
    [{ WEBHOOK_EXPIRE_SECONDS: '20' }, 'WEBHOOK_EXPIRE_SECONDS must be at least 21 (twice WEBHOOK_TIMEOUT_MS and a second)'],
  ])('rejects %j with one line naming the variable', (env, expected) => {
    const message = errorOf(env);
    expect(message).toContain(expected);
    expect(message).not.toContain('\n');
  });

  it('never echoes the rejected value (it may be a secret)', () => {
    expect(errorOf({ JWT_PRIVATE_KEY: 'secret-material-xyz' })).not.toContain('secret-material-xyz');
  });

  it.each(['DATABASE_URL', 'JWT_PRIVATE_KEY', 'CURSOR_SECRET'])('refuses production without %s', (missing) => {
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://api@db/app',
      JWT_PRIVATE_KEY: privatePem,
      CURSOR_SECRET: 'c'.repeat(40),
    };
    delete env[missing];
    expect(errorOf(env)).toBe(`Invalid configuration: ${missing} is required when NODE_ENV=production`);
  });

  it('sets webhooks up for a development machine by default, and for separate workers in production', () => {
    const dev = loadConfig({}).webhooks;
    expect(dev).toMatchObject({
      allowPrivate: false,
      timeoutMs: 10_000,
      expireSeconds: 120,
      batchSize: 100,
      retentionDays: 30,
    });
    expect(dev.secretOverlapSeconds).toBe(86_400);
    expect(dev.retrySchedule.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual((72 * 3600) / 0.8);
    const prod = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://api@db/app',
      JWT_PRIVATE_KEY: privatePem,
      CURSOR_SECRET: 'c'.repeat(40),
    });
    expect(prod.worker.inProcess).toBe(false);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1,2,4,8', WEBHOOK_SECRET_OVERLAP: '5m' }).webhooks).toMatchObject({
      retrySchedule: [1, 2, 4, 8],
      secretOverlapSeconds: 300,
    });
  });

  it('WORKER runs the worker in the API process; WEBHOOK_WORKER is its earlier name; both set must agree', () => {
    expect(loadConfig({}).worker.inProcess).toBe(true);
    expect(loadConfig({ WORKER: '0' }).worker.inProcess).toBe(false);
    expect(loadConfig({ WEBHOOK_WORKER: '0' }).worker.inProcess).toBe(false);
    expect(loadConfig({ WORKER: '1', WEBHOOK_WORKER: '1' }).worker.inProcess).toBe(true);
    expect(() => loadConfig({ WORKER: '1', WEBHOOK_WORKER: '0' })).toThrow(/WORKER and WEBHOOK_WORKER/);
    expect(() => loadConfig({ WORKER: 'yes' })).toThrow(/WORKER must be 0 or 1/);
  });

  it('the worker serves its metrics on 9465 unless METRICS_PORT says otherwise, so it runs beside the API (9464) on one host', () => {
    expect(loadConfig({})).toMatchObject({ metricsPort: 9464, worker: { metricsPort: 9465 } });
    expect(loadConfig({ METRICS_PORT: '9100' })).toMatchObject({ metricsPort: 9100, worker: { metricsPort: 9100 } });
    expect(loadConfig({ METRICS_PORT: 'off' }).worker.metricsPort).toBeUndefined();
  });

  it('accepts a complete production configuration', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://api@db/app',
      JWT_PRIVATE_KEY: privatePem,
      CURSOR_SECRET: 'c'.repeat(40),
    });
    expect(config.production).toBe(true);
    expect(config.shutdownDelayMs).toBe(5000);
  });
});
