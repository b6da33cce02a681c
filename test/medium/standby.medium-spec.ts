import { Client, DatabaseError } from 'pg';
import { ReplicatedPair, startReplicatedPair } from '../support/standby';

/** Runs `sql` on a fresh session of `url` and returns its rows. */
async function query<T extends object>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The error `sql` fails with on `url` (the test fails when it succeeds). */
async function failure(url: string, sql: string): Promise<DatabaseError> {
  const error = await query(url, sql).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DatabaseError)) throw new Error(`expected "${sql}" to fail with a database error, got ${String(error)}`);
  return error;
}

async function notes(url: string): Promise<string[]> {
  return (await query<{ note: string }>(url, 'SELECT note FROM standby_probe ORDER BY id')).map((row) => row.note);
}

/**
 * The harness of the read-replica tests (#51): a dedicated, migrated primary and a real hot
 * standby streaming from it (test/support/standby.ts). What a standby does and refuses, as the
 * service's replica routing will meet it. The tests run in order: promotion ends the standby.
 */
describe('a replicated pair (primary and hot standby)', () => {
  let pair: ReplicatedPair;

  beforeAll(async () => {
    pair = await startReplicatedPair('standby_harness');
    await query(pair.primary.ownerUrl, 'CREATE TABLE standby_probe (id serial PRIMARY KEY, note text NOT NULL)');
  });
  afterAll(async () => {
    await pair?.stop();
  });

  it('is a standby, reachable by the primary roles and passwords on its own port', async () => {
    expect(pair.standby.port).not.toBe(pair.primary.port);
    expect(await query(pair.standby.superUrl, 'SELECT pg_is_in_recovery() AS recovery')).toEqual([{ recovery: true }]);
    expect(await query(pair.primary.superUrl, 'SELECT pg_is_in_recovery() AS recovery')).toEqual([{ recovery: false }]);
    expect(await query(pair.standby.apiUrl, 'SELECT current_user AS who')).toEqual([{ who: 'conv_api' }]);
    expect(await query(pair.standby.ownerUrl, 'SELECT current_user AS who')).toEqual([{ who: 'conv_owner' }]);
    // Streaming, not merely restored from the copy.
    expect(await query(pair.standby.superUrl, 'SELECT status FROM pg_stat_wal_receiver')).toEqual([{ status: 'streaming' }]);
  });

  it('shows each row written on the primary once caught up', async () => {
    // Several rounds: the primary commits asynchronously, and a caughtUp that took the primary's
    // position before the commit reached its WAL files would miss a row now and then.
    const written: string[] = [];
    for (const note of ['first', 'second', 'third', 'fourth', 'fifth']) {
      await query(pair.primary.ownerUrl, 'INSERT INTO standby_probe (note) VALUES ($1)', [note]);
      written.push(note);
      await pair.standby.caughtUp();
      expect(await notes(pair.standby.ownerUrl)).toEqual(written);
    }
  });

  it('refuses writes: read-only transaction (SQLSTATE 25006)', async () => {
    const error = await failure(pair.standby.ownerUrl, `INSERT INTO standby_probe (note) VALUES ('on the standby')`);
    expect(error.code).toBe('25006');
    expect(error.message).toBe('cannot execute INSERT in a read-only transaction');
  });

  it('cannot read an unlogged table (change_epoch_life): SQLSTATE 0A000, which the replica reads must avoid', async () => {
    expect(await query(pair.primary.ownerUrl, `SELECT relpersistence FROM pg_class WHERE relname = 'change_epoch_life'`)).toEqual([
      { relpersistence: 'u' },
    ]);
    const error = await failure(pair.standby.ownerUrl, 'SELECT * FROM change_epoch_life');
    expect(error.code).toBe('0A000');
    expect(error.message).toBe('cannot access temporary or unlogged relations during recovery');
  });

  it('with replay paused, hides a row it has already received; shows it after resume', async () => {
    await pair.standby.pauseReplay();
    try {
      await query(pair.primary.ownerUrl, `INSERT INTO standby_probe (note) VALUES ('while paused')`);
      // The WAL with the row is on the standby: only the paused replay keeps it from showing.
      await pair.standby.received();
      expect(await notes(pair.standby.ownerUrl)).not.toContain('while paused');
    } finally {
      await pair.standby.resumeReplay();
    }
    await pair.standby.caughtUp();
    expect(await notes(pair.standby.ownerUrl)).toContain('while paused');
  });

  it('leaves recovery when promoted, and then accepts writes', async () => {
    await pair.standby.promote();
    expect(await query(pair.standby.superUrl, 'SELECT pg_is_in_recovery() AS recovery')).toEqual([{ recovery: false }]);
    await query(pair.standby.ownerUrl, `INSERT INTO standby_probe (note) VALUES ('after promotion')`);
    expect((await notes(pair.standby.ownerUrl)).slice(-2)).toEqual(['while paused', 'after promotion']);
  });
});
