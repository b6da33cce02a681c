import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { eventually } from '../support/test-app';

/** Every process below `pid` (children, theirs, …), as `ps` sees them now. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of rows) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether something accepts connections on 127.0.0.1:port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * `npm start` as a supervisor, a test harness or a terminal multiplexer runs it: one process,
 * stopped with SIGTERM to that process only (not its group). The service, its metrics port and
 * the embedded PostgreSQL it started must all be gone afterwards.
 */

/**
 * A free port below Linux's ephemeral range (32768 and up): a port that `listen(0)` handed out
 * and gave back can be handed to another file's service before this one binds it (files run two
 * at a time), whose answers then passed for this service's. Ports below the range are never
 * handed out that way.
 */
async function quietPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

describe('npm start, stopped with SIGTERM', () => {
  const root = mkdtempSync(join(tmpdir(), 'start-signals-'));
  const dataDir = join(root, 'data');
  let npm: ChildProcess | undefined;
  let processes: number[] = [];
  let output = '';

  afterAll(() => {
    // Whatever is left (a failed run: orphans of npm no longer below it) is killed, so nothing outlives the test.
    const left = npm?.pid ? [npm.pid, ...descendants(npm.pid), ...processes] : processes;
    for (const pid of left) if (alive(pid)) process.kill(pid, 'SIGKILL');
    // A root run keeps its cluster in a reachable home (README): remove it too.
    const state = join(dataDir, 'postgres.json');
    if (existsSync(state)) {
      const { clusterDir } = JSON.parse(readFileSync(state, 'utf8')) as { clusterDir?: string };
      if (clusterDir) rmSync(dirname(clusterDir), { recursive: true, force: true });
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('passes it on: the service stops its embedded PostgreSQL and nothing of it is left running or listening', async () => {
    const [port, metricsPort] = [await quietPort(), await quietPort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      DATA_DIR: dataDir,
      NODE_ENV: 'development',
    };
    for (const name of ['DATABASE_URL', 'MIGRATION_DATABASE_URL', 'AUDIT_DATABASE_URL', 'REDIS_URL', 'CURSOR_SECRET', 'JWT_PRIVATE_KEY'])
      delete env[name];
    npm = spawn('npm', ['start'], { cwd: join(__dirname, '../..'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    npm.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    npm.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<void>((resolve) => npm!.once('exit', () => resolve()));

    // Built, the embedded database started and seeded, serving: sized for a machine twice as slow as a busy CI one.
    await eventually(async () => {
      if (npm!.exitCode !== null) throw new Error(`npm start exited with ${npm!.exitCode}:\n${output}`);
      // Its own cluster first: a port found free can be taken meanwhile by another file's service,
      // whose readiness would otherwise pass for this one's (two files run at once since #46).
      if (!existsSync(join(dataDir, 'postgres.json'))) return false;
      return fetch(`http://127.0.0.1:${port}/health/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
    }, 600_000);
    const { port: postgresPort } = JSON.parse(readFileSync(join(dataDir, 'postgres.json'), 'utf8')) as { port: number };
    processes = descendants(npm.pid!);
    expect(processes.length).toBeGreaterThanOrEqual(2); // the service and PostgreSQL, at least
    expect([await listening(port), await listening(metricsPort), await listening(postgresPort)]).toEqual([true, true, true]);

    npm.kill('SIGTERM'); // to npm alone, as a supervisor does: not to its process group
    await exited;
    await eventually(async () => processes.every((pid) => !alive(pid)), 60_000).catch(() => undefined);
    expect(processes.filter(alive)).toEqual([]);
    expect([await listening(port), await listening(metricsPort), await listening(postgresPort)]).toEqual([false, false, false]);
  });
});
