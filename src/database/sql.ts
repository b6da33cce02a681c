import { TimeIdPosition } from '../common/cursors/keyset-page';

/**
 * Small helpers for the hand-written read queries: timestamps at PostgreSQL's full
 * precision, numbered parameters, and the keyset condition every list shares.
 */

/** A timestamp as RFC 3339 UTC with microseconds. */
export const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A timestamp as microseconds since the epoch, as text: the time half of a keyset position. */
export const micros = (column: string) => `(extract(epoch FROM ${column}) * 1000000)::bigint::text`;

/** `{id, name, email}` of the users row aliased `alias`. */
export const userJson = (alias: string) => `json_build_object('id', ${alias}.public_id, 'name', ${alias}.name, 'email', ${alias}.email)`;

/** The accounts linked to `owner` through `linkTable(linkColumn, account_id)`, by domain. */
export const accountsJson = (linkTable: string, linkColumn: string, owner: string) =>
  `(SELECT coalesce(json_agg(json_build_object('id', ac.public_id, 'domain', ac.domain, 'cnpj', ac.cnpj) ORDER BY ac.domain, ac.id), '[]')
     FROM ${linkTable} la JOIN accounts ac ON ac.id = la.account_id WHERE la.${linkColumn} = ${owner})`;

/** The row counts a list statement may read: every page size maps to the smallest that holds it. */
export const FETCH_SIZES = [2, 6, 11, 21, 51, 101] as const;

/**
 * A page's `LIMIT`, written into the statement rather than passed as a parameter (with a
 * parameter, a generic plan assumes a tenth of the table will be read, which can pick join
 * strategies, and on servers with JIT compilation, meant for thousands of rows), but rounded up
 * to one of FETCH_SIZES: each distinct statement text is a prepared statement on every pooled
 * connection (hundreds of KB each for the record query), so page sizes must not multiply the
 * texts a client can create. The caller keeps the first `take` rows (pageOf).
 */
export function limitClause(take: number): string {
  const size = FETCH_SIZES.find((s) => s >= take);
  if (!Number.isSafeInteger(take) || take < 1 || !size) throw new Error(`not a page size: ${take}`);
  return `LIMIT ${size}`;
}

/** The first `take` rows of a statement that read up to its fetch size (limitClause). */
export const pageOf = <T>(rows: T[], take: number): T[] => (rows.length > take ? rows.slice(0, take) : rows);

/** Collects SQL parameters and hands out their placeholders. */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** `(timeColumn, idColumn) > position`: the rows after a cursor, served by an index ending in both columns. */
  after(timeColumn: string, idColumn: string, position: TimeIdPosition): string {
    const t = this.add(position[0]);
    const id = this.add(position[1]);
    return `(${timeColumn}, ${idColumn}) > (timestamptz 'epoch' + ${t}::bigint * interval '1 microsecond', ${id}::bigint)`;
  }
}
