import { ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../src/database/embedded-postgres';
import { builtEntry } from './process-build';
import { assertTestDatabase, testSigningKey, UNREACHED_RATE_LIMITS } from './test-app';

export const TEST_PROCESS_CURSOR_SECRET = 'process-test-cursor-secret-0123456789abcdef';

/** The service (src/main.ts, compiled once for the run) in a process of its own, as `npm start` would run it, on the test databases. */
export interface ServiceProcess {
  port: number;
  base: string;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

export async function startServiceProcess(env: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [builtEntry('src/main.ts')], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      LOG_FORMAT: 'json',
      PORT: String(port),
      METRICS_PORT: 'off',
      DATABASE_URL: assertTestDatabase(process.env.TEST_DATABASE_URL),
      MIGRATION_DATABASE_URL: assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL),
      CURSOR_SECRET: TEST_PROCESS_CURSOR_SECRET,
      JWT_PRIVATE_KEY: testSigningKey(),
      DATA_DIR: `${process.env.TEST_ROOT}/process-data-${port}`,
      WORKER: '0',
      SHUTDOWN_DELAY_MS: '0',
      ...UNREACHED_RATE_LIMITS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${base}/health/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service was not ready in 90 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    port,
    base,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** An access token from the process's own token endpoint. */
export async function processToken(base: string, client: { clientId: string; clientSecret: string }): Promise<string> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
