import { readFile } from 'node:fs/promises';

/** What the example keeps per object: the answers of its routes. */
export type Copy = Record<string, { object: string; id: string; parent_id: string | null; [part: string]: unknown }>;

/** The example's state file, replayed: the copy, its last checkpoint, and how many whole lines it holds. */
export type Journal = { cursor: string | null; export: { feed_cursor: string; after: string | null } | null; objects: Copy; lines: number };

/**
 * Reads the example's journal as the example replays it: one JSON object per line, the last put of
 * a key wins, a delete removes it, the last checkpoint (export or cursor) holds; a last line
 * without its newline (a write cut by a crash) is ignored. Any other line that is not JSON throws.
 */
export async function readJournal(path: string): Promise<Journal> {
  const lines = (await readFile(path, 'utf8')).split('\n');
  lines.pop(); // '' after the last newline, or a torn line
  const journal: Journal = { cursor: null, export: null, objects: {}, lines: lines.length };
  for (const line of lines) {
    const entry = JSON.parse(line) as { put?: string; value?: Copy[string]; delete?: string; export?: Journal['export']; cursor?: string };
    if (entry.put !== undefined) journal.objects[entry.put] = entry.value!;
    else if (entry.delete !== undefined) delete journal.objects[entry.delete];
    else if (entry.export !== undefined) journal.export = entry.export;
    else if (entry.cursor !== undefined) [journal.cursor, journal.export] = [entry.cursor, null];
    else throw new Error(`not a journal line: ${line.slice(0, 100)}`);
  }
  return journal;
}
