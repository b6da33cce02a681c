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
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Cannot use a pool after calling end|the database system is (starting up|shutting down)/i.test(
    message,
  );
}
