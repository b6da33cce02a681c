import { readFileSync } from 'node:fs';
import { statementsOf } from '../../src/changes/render-capture-sql';

/**
 * `CAPTURE_SQL=<file>`: installs that rendering of the capture (an older `capture.sql`, e.g.
 * `git show <commit>:src/changes/capture.sql > old.sql`) over today's before a capture spec runs,
 * to show that the spec fails on the older capture. Without it, nothing: today's capture stays.
 */
export async function installCaptureUnderTest(query: (sql: string) => Promise<unknown>): Promise<void> {
  const file = process.env.CAPTURE_SQL;
  if (!file) return;
  for (const sql of statementsOf(readFileSync(file, 'utf8'))) await query(sql);
}
