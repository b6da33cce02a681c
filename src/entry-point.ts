import { CaptureMismatchError } from './changes/capture-check';
import { ConfigError } from './config/app-config';
import { DatabaseRoleError } from './database/database-role-check';
import { EmbeddedDatabaseError } from './database/embedded-postgres';

/**
 * What the process entry points share (the server, the worker): a start that fails prints one
 * line, the operator's when the failure is one they can act on, else the stack, and exits 1; and
 * SIGTERM or SIGINT runs the shutdown once.
 */
export function runEntryPoint(main: () => Promise<void>, what: string): void {
  main().catch((error: unknown) => {
    const known =
      error instanceof ConfigError ||
      error instanceof EmbeddedDatabaseError ||
      error instanceof DatabaseRoleError ||
      error instanceof CaptureMismatchError;
    process.stderr.write(`${known ? error.message : `${what} failed: ${(error as Error).stack ?? error}`}\n`);
    process.exit(1);
  });
}

/** Runs `shutdown` on the first SIGTERM or SIGINT (the second is ignored: shutdown is under way). */
export function onTermination(shutdown: (signal: string) => Promise<void>): void {
  let stopping = false;
  const once = (signal: string) => {
    if (stopping) return;
    stopping = true;
    void shutdown(signal);
  };
  process.on('SIGTERM', () => once('SIGTERM'));
  process.on('SIGINT', () => once('SIGINT'));
}
