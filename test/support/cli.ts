import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { assertTestDatabase } from './test-app';

const run = promisify(execFile);

/** Runs the real admin CLI in its own process, as an admin would, with `env` added to the test environment. */
export async function runCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/cli/main.ts', ...args], {
      env: {
        PATH: process.env.PATH,
        LOG_LEVEL: 'silent',
        DATABASE_URL: assertTestDatabase(process.env.TEST_DATABASE_URL),
        MIGRATION_DATABASE_URL: assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL),
        CURSOR_SECRET: 'cli-test-cursor-secret-0123456789abcdef',
        DATA_DIR: `${process.env.TEST_ROOT}/cli-data`,
        ...env,
      },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}
