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

/**
 * A page's `LIMIT`, written into the statement rather than passed as a parameter: with a
 * parameter, a generic plan assumes a tenth of the table will be read, which can pick join
 * strategies (and, on servers with JIT, compilation) meant for thousands of rows. Page sizes
 * are few (1 to 101), so their statements are few too.
 */
export function limitClause(take: number): string {
  if (!Number.isSafeInteger(take) || take < 1 || take > 1000) throw new Error(`not a page size: ${take}`);
  return `LIMIT ${take}`;
}

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
