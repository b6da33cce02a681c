import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { Socket } from 'node:net';
import { freePort } from '../../src/database/embedded-postgres';

/** A redis-server this test owns: it can stop, restart, pause and resume it (fault tests). */
export interface RedisServer {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  pause(): void;
  resume(): void;
}

/** Whether `redis-server` is on the PATH. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * How Redis tests run here: against their own redis-server (every test, faults included), or
 * against REDIS_URL (no fault tests: the server is not theirs to stop), or not at all, said
 * once on the console so a skipped suite is never silent.
 */
export function redisMode(): 'server' | 'url' | 'none' {
  if (hasRedisServer()) return 'server';
  if (process.env.REDIS_URL) return 'url';
  return 'none';
}

export function explainSkip(what: string): void {
  console.warn(`SKIPPED ${what}: no redis-server on the PATH and no REDIS_URL`);
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

/** Starts an ephemeral redis-server (no persistence) on a free port. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const started = Date.now();
    while (!(await accepting(port))) {
      if (Date.now() - started > 10_000) throw new Error('redis-server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    running.kill('SIGCONT');
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  };
}
