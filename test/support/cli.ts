import { ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { builtEntry } from './process-build';
import { assertTestDatabase, eventually, TEST_WEBHOOK_SECRET_KEY } from './test-app';

const run = promisify(execFile);

/**
 * How the tests start the real admin CLI (or another entry point, named by its source): node
 * running the app compiled once for the run (test/support/process-build.ts), on the test
 * databases, `env` added.
 */
function cliProcess(
  env: NodeJS.ProcessEnv,
  args: string[],
  entry = 'src/cli/main.ts',
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  return {
    command: process.execPath,
    args: [builtEntry(entry), ...args],
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'silent',
      DATABASE_URL: assertTestDatabase(process.env.TEST_DATABASE_URL),
      MIGRATION_DATABASE_URL: assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL),
      CURSOR_SECRET: 'cli-test-cursor-secret-0123456789abcdef',
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
      DATA_DIR: `${process.env.TEST_ROOT}/cli-data`,
      ...env,
    },
  };
}

/** Runs the real admin CLI in its own process, as an admin would, with `env` added to the test environment. */
export async function runCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cli = cliProcess(env, args);
  try {
    const { stdout, stderr } = await run(cli.command, cli.args, { env: cli.env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** Runs the real admin CLI in its own process, as an admin would, on the test environment. */
export function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli({}, ...args);
}

/** The one JSON line a `--json` command printed (expecting exactly one). */
export function onlyJson(stdout: string): unknown {
  const lines = stdout.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
}

/** Starts the real admin CLI and returns at once (to signal it while it runs). */
export function spawnCli(env: NodeJS.ProcessEnv, ...args: string[]): ChildProcess {
  const cli = cliProcess(env, args);
  return spawn(cli.command, cli.args, { env: cli.env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Starts the worker (`npm run worker`) in its own process, as a deployment would, with the CLI's environment and `env`. */
export function spawnWorker(env: NodeJS.ProcessEnv): ChildProcess {
  const worker = cliProcess(env, [], 'src/worker.main.ts');
  return spawn(worker.command, worker.args, { env: worker.env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A worker process once it says its loops run (`worker running:`), and everything it has logged; `track` keeps it for the caller's cleanup. */
export async function startWorker(
  env: NodeJS.ProcessEnv,
  track: ChildProcess[] = [],
): Promise<{ process: ChildProcess; output: () => string }> {
  const worker = spawnWorker(env);
  track.push(worker);
  let output = '';
  worker.stdout!.on('data', (d) => (output += d));
  worker.stderr!.on('data', (d) => (output += d));
  await eventually(async () => {
    if (worker.exitCode !== null) throw new Error(`the worker exited: ${output}`);
    return output.includes('worker running:');
  }, 90_000);
  return { process: worker, output: () => output };
}
