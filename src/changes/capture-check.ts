import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CAPTURE_TRIGGERS } from './capture-sql';

/**
 * The capture triggers that are missing or do not fire for every writer (`tgenabled` other than
 * ALWAYS), each named: a disabled one means the feed silently misses changes; one enabled for
 * ordinary writers only (what `ALTER TABLE … ENABLE TRIGGER ALL` after a data-only restore with
 * `--disable-triggers` leaves) misses replication and `session_replication_role = replica` writers.
 */
export async function captureTriggersOff(dataSource: DataSource): Promise<string[]> {
  const rows: Array<{ name: string; enabled: string }> = await dataSource.query(
    `SELECT t.tgname AS name, t.tgenabled AS enabled FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
     WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal AND t.tgname = ANY ($1)`,
    [CAPTURE_TRIGGERS.map((t) => t.name)],
  );
  const state = new Map(rows.map((r) => [r.name, r.enabled]));
  return CAPTURE_TRIGGERS.flatMap(({ table, name }) => {
    const enabled = state.get(name);
    if (enabled === 'A') return [];
    const what = enabled === undefined ? 'missing' : enabled === 'D' ? 'disabled' : 'not enabled ALWAYS';
    return [`${name} on ${table} (${what})`];
  });
}

/** A capture trigger missing or not firing for every writer: the operator's to fix, as the message says (the entry point prints it alone). */
export class CaptureMismatchError extends Error {}

/**
 * Refuses to start the API while a capture trigger is missing or does not fire for every writer:
 * the feed's promise (nothing is ever skipped) holds only with capture on, and nothing else would
 * notice it was off.
 */
@Injectable()
export class CaptureCheck implements OnApplicationBootstrap {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async onApplicationBootstrap(): Promise<void> {
    const off = await captureTriggersOff(this.dataSource);
    if (!off.length) return;
    throw new CaptureMismatchError(
      `CHANGE CAPTURE IS NOT ON FOR EVERY WRITER: ${off.slice(0, 5).join(', ')}${off.length > 5 ? ` and ${off.length - 5} more` : ''}. ` +
        'Refusing to start: the change feed would silently miss changes. As the schema owner, run the ' +
        'CREATE OR REPLACE TRIGGER and ALTER TABLE … ENABLE ALWAYS TRIGGER lines of src/changes/capture.sql ' +
        '(a data-only restore with --disable-triggers leaves them enabled for ordinary writers only).',
    );
  }
}
