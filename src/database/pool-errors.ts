import { Logger } from '@nestjs/common';
import { Pool } from 'pg';

/**
 * A lost connection is logged, never fatal, whether its client sits idle in the pool or is
 * checked out between two queries (pg's pool listens for errors on idle clients only: a client
 * held across other awaited work, a transaction waiting on a second pool, emits its
 * `Connection terminated unexpectedly` with no listener, and Node ends the process). The query in
 * flight, if any, still rejects; the caller's loop retries.
 */
export function survivePoolErrors(pool: Pool, logger: Logger, what: string): void {
  const warn = (error: Error) => logger.warn(`${what} connection lost: ${error.message}`);
  pool.on('error', warn);
  pool.on('connect', (client) => client.on('error', warn));
}
