import { AdminError } from '../common/errors/admin-error';
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

function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof AdminError) return { code: error.code, message: error.message };
  const coded = error as { code?: unknown; message?: unknown } | null;
  if (coded && typeof coded.code === 'string' && /^[A-Z][A-Z_]+$/.test(coded.code) && typeof coded.message === 'string') {
    return { code: coded.code, message: coded.message };
  }
  return { code: 'INTERNAL_ERROR', message: error instanceof Error ? error.message : String(error) };
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
