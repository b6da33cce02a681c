/**
 * Whether an error means PostgreSQL could not be used right now (down, restarting,
 * unreachable, out of connections, a query over its budget, or the pool already closed by a
 * shutdown): answered 503, never 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as { code?: unknown; message?: unknown; driverError?: unknown };
  if (e.driverError && e.driverError !== error && isDatabaseUnavailable(e.driverError)) return true;
  const code = typeof e.code === 'string' ? e.code : '';
  // SQLSTATE: 08 connection exception, 53 insufficient resources, 57 operator intervention
  // (admin/crash shutdown, cannot connect now, statement timeout), 25P03 idle-in-transaction timeout.
  if (/^(08|53|57)/.test(code) || code === '25P03') return true;
  // A hot standby cancelled the read for its replay (a conflict with recovery: 40001, or 40P01 for a buffer deadlock).
  if ((code === '40001' || code === '40P01') && /with recovery/i.test(typeof e.message === 'string' ? e.message : '')) return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Cannot use a pool after calling end|the database system is (starting up|shutting down)/i.test(
    message,
  );
}

/**
 * Whether PostgreSQL aborted a transaction that may simply be run again: a serialization failure
 * (`40001`: a REPEATABLE READ or SERIALIZABLE snapshot met a row changed since, or a write the
 * change capture orders after another) or a deadlock (`40P01`: two writers took the rows a
 * capture locks in other orders). What a capture system does with one: run the transaction again.
 */
export function isRetryableTransaction(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as { code?: unknown; driverError?: unknown };
  if (e.driverError && e.driverError !== error && isRetryableTransaction(e.driverError)) return true;
  return e.code === '40001' || e.code === '40P01';
}
