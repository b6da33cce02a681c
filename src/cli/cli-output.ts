import { AdminError, AdminErrorCode } from '../common/errors/admin-error';
import { isDatabaseUnavailable } from '../common/errors/database-errors';
import { ConfigError } from '../config/app-config';
import { EmbeddedDatabaseError } from '../database/embedded-postgres';
import type { Progress } from '../seeding/volume-seeder';

/**
 * The CLI's output contract: with `--json`, exactly one JSON object on stdout and nothing
 * else there; without it, readable text. Progress and logs go to stderr.
 */
export class CliOutput {
  constructor(readonly json: boolean) {}

  result(value: object, text: string): void {
    process.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  }

  failure(error: unknown): void {
    const { code, message } = describeFailure(error);
    if (this.json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else process.stderr.write(`error: ${message} (${code})\n`);
    process.exitCode = 1;
  }
}

function describeFailure(error: unknown): { code: AdminErrorCode; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AdminError) return { code: error.code, message };
  if (error instanceof ConfigError) return { code: 'INVALID_CONFIGURATION', message };
  if (error instanceof EmbeddedDatabaseError) return { code: 'EMBEDDED_DATABASE_UNAVAILABLE', message };
  if (isDatabaseUnavailable(error)) return { code: 'DATABASE_UNAVAILABLE', message };
  return { code: 'INTERNAL_ERROR', message };
}

export const CLI_OUTPUT = Symbol('CliOutput');

/** A one-line progress bar on stderr (a terminal only: stdout stays the command's answer). */
export function progressBar(): Progress {
  const started = Date.now();
  return (what, done, total) => {
    const width = 30;
    const filled = Math.round((Math.min(done, total) / Math.max(total, 1)) * width);
    const rate = Math.round(done / Math.max((Date.now() - started) / 1000, 0.001));
    process.stderr.write(`\r${what.padEnd(20)} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total} (${rate}/s)   `);
  };
}
