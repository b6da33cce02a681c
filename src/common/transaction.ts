/** What a transaction runs on: a client of pg (a pooled one, or one of its own). */
export interface TransactionClient {
  query(text: string): Promise<unknown>;
}

/**
 * `begin` (BEGIN, or BEGIN with settings), then `work`, then COMMIT; on any failure ROLLBACK (its
 * own failure ignored, or told to `rollbackFailed`: the connection may be the thing that failed,
 * and a pool's owner may rather discard it) and the error rethrown. The caller owns the
 * connection and releases it after.
 */
export async function inTransaction<T>(
  client: TransactionClient,
  work: () => Promise<T>,
  begin = 'BEGIN',
  rollbackFailed: (failure: Error) => void = () => undefined,
): Promise<T> {
  try {
    await client.query(begin);
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(rollbackFailed);
    throw error;
  }
}
