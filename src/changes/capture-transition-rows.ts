/**
 * The transition tables a statement-level capture trigger reads: `new_rows` (INSERT, UPDATE) and
 * `old_rows` (UPDATE, DELETE). Shared by the capture's builders and the shared rows' locks.
 */

export type Op = 'INSERT' | 'DELETE' | 'UPDATE';

/** Each row an UPDATE changed, new (`n`) beside old (`o`): for a table with an `id` of its own. */
export const OLD_AND_NEW = 'new_rows n JOIN old_rows o ON o.id = n.id';

/** The transition rows of an operation: the new ones, and the old ones of an UPDATE or DELETE. */
export function rowsOf(op: Op): string[] {
  return op === 'INSERT' ? ['new_rows'] : op === 'DELETE' ? ['old_rows'] : ['new_rows', 'old_rows'];
}

/** The rows a statement touched: its new rows, and on UPDATE its old rows too (a row moved from one parent to another changes both). */
export const touched = (columns: string, op: Op, filter?: string) =>
  rowsOf(op)
    .map((rows) => `SELECT ${columns} FROM ${rows}${filter ? ` WHERE ${filter}` : ''}`)
    .join(' UNION ');
