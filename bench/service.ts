import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchDatabase } from './database';
import { parse } from 'yaml';
import { freePort } from '../src/database/embedded-postgres';

export const PRODUCTION_ENTRY = join('dist', 'src', 'main.js');

/**
 * The Node options the API runs with where it is deployed (the Kubernetes manifest's
 * NODE_OPTIONS: the heap capped under the memory limit). Every process the bench starts runs with
 * them, so it measures the service as it runs: without a cap, V8 sizes the heap for the machine
 * (a quarter of its memory, up to 4 GB) and lets garbage grow far longer between full
 * collections (a 100,000-record export: +130 MB of RSS instead of +26, at the same speed).
 */
export function deployedNodeOptions(manifest = join('deploy', 'kubernetes', 'base', 'api-deployment.yaml')): string {
  const deployment = parse(readFileSync(manifest, 'utf8')) as {
    spec: { template: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } } };
  };
  const value = deployment.spec.template.spec.containers.flatMap((c) => c.env ?? []).find((e) => e.name === 'NODE_OPTIONS')?.value;
  if (!value) throw new Error(`${manifest} sets no NODE_OPTIONS`);
  return value;
}

/** Quotas no scenario can reach, so the limiter is exercised on every request but never refuses. */
const UNREACHABLE = '100000000/60';

/** The environment of the service and the CLI: production mode against the bench database. */
export function serviceEnv(db: BenchDatabase, tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.REDIS_URL; // the main pass counts in process; the Redis pass sets it
  return {
    ...env,
    NODE_ENV: 'production',
    DATABASE_URL: db.urls.api,
    MIGRATION_DATABASE_URL: db.urls.owner,
    AUDIT_DATABASE_URL: db.urls.audit,
    DATA_DIR: tmp,
    JWT_PRIVATE_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    CURSOR_SECRET: randomBytes(32).toString('base64url'),
    RATE_LIMIT_CLIENT: UNREACHABLE,
    RATE_LIMIT_COMPANY: UNREACHABLE,
    RATE_LIMIT_EMAIL_CONTENT: UNREACHABLE,
    RATE_LIMIT_CHAT_CONTENT: UNREACHABLE,
    RATE_LIMIT_EXPORT: UNREACHABLE,
    RATE_LIMIT_TOKEN: UNREACHABLE,
    SHUTDOWN_DELAY_MS: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  };
}

/** Resident memory of a process, read from /proc (Linux): now and the kernel's high-water mark. */
export function residentMb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: Math.round(kb('VmRSS') / 1024), hwm: Math.round(kb('VmHWM') / 1024) };
}

/** Samples a process's RSS every 100 ms and keeps the highest value since the last reset. */
export class RssSampler {
  private peak = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), 100);
    this.timer.unref();
  }

  reset(): void {
    this.peak = 0;
    this.sample();
  }

  peakMb(): number {
    this.sample();
    return this.peak;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    try {
      this.peak = Math.max(this.peak, residentMb(this.pid).rss);
    } catch {
      // The process is gone; its last peak stands.
    }
  }
}

/** The service as a child process (the compiled production entry), its log in a file. */
export class ServiceProcess {
  readonly rss: RssSampler;

  private constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
    private readonly logFile: string,
    /** `http://127.0.0.1:<METRICS_PORT>/metrics`, unless METRICS_PORT=off. */
    readonly metricsUrl?: string,
  ) {
    this.rss = new RssSampler(child.pid!);
  }

  /** Starts `node <entry>` on `port` (with deployedNodeOptions()) and waits until `/health/ready` answers 200. */
  static async start(
    entry: string,
    port: number,
    env: NodeJS.ProcessEnv,
    logFile: string,
    nodeFlags: string[] = [],
  ): Promise<ServiceProcess> {
    const log = createWriteStream(logFile, { flags: 'a' });
    await new Promise((resolve) => log.once('open', resolve));
    // Each service its own metrics port: several run side by side.
    const metricsPort = env.METRICS_PORT === 'off' ? undefined : String(await freePort());
    const child = spawn(process.execPath, [...nodeFlags, entry], {
      env: {
        ...env,
        NODE_OPTIONS: [deployedNodeOptions(), env.NODE_OPTIONS].filter(Boolean).join(' '),
        PORT: String(port),
        METRICS_PORT: metricsPort ?? 'off',
      },
      stdio: ['ignore', log, log],
    });
    const metricsUrl = metricsPort ? `http://127.0.0.1:${metricsPort}/metrics` : undefined;
    const service = new ServiceProcess(child, `http://127.0.0.1:${port}`, logFile, metricsUrl);
    let exited: number | null | undefined;
    child.once('exit', (code) => (exited = code));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (exited !== undefined) throw new Error(`${entry} exited with ${exited} before it was ready:\n${await service.logTail()}`);
      const ready = await fetch(`${service.baseUrl}/health/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) return service;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    child.kill('SIGKILL');
    throw new Error(`${entry} was not ready within 60 s:\n${await service.logTail()}`);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** SIGTERM (graceful shutdown), SIGKILL after 15 s. */
  async stop(): Promise<void> {
    this.rss.stop();
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  }

  private async logTail(): Promise<string> {
    const text = await readFile(this.logFile, 'utf8').catch(() => '');
    return text.split('\n').slice(-20).join('\n');
  }
}
