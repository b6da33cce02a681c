import { createHash } from 'node:crypto';
import type { PoolClient, QueryResultRow } from 'pg';

/** What node-postgres believes is prepared on a connection (set only once the server confirmed it). */
const parsedBy = (client: PoolClient) =>
  (client as unknown as { connection: { parsedStatements: Record<string, unknown> } }).connection.parsedStatements;

/** Statement names by text: a statement's text is hashed once, not on every request. */
const NAMES = new Map<string, string>();

function nameOf(text: string): string {
  let name = NAMES.get(text);
  if (!name) {
    name = `t_${createHash('sha1').update(text).digest('base64url')}`;
    if (NAMES.size >= 1024) NAMES.clear(); // texts are a small fixed set (values are always parameters): a bound all the same
    NAMES.set(text, name);
  }
  return name;
}

/**
 * The named prepared statements of each pooled connection, least recently used first. A
 * statement of the record query costs its backend hundreds of KB, so a connection keeps at most
 * `max` of them: past that, the least recently used is forgotten by the driver (which otherwise
 * believes it still exists and skips preparing it again) and deallocated on the server. A name
 * is kept only once the driver saw the server prepare it, so a statement that failed to prepare
 * is never deallocated (which would fail, and fail another request with it).
 */
export class PreparedStatements {
  private readonly byConnection = new WeakMap<PoolClient, Map<string, true>>();

  constructor(readonly max: number) {}

  /** Runs `text` on `client`, as a kept named statement when the cap allows, else unnamed. */
  async run<T extends QueryResultRow>(client: PoolClient, text: string, values: unknown[]): Promise<T[]> {
    if (this.max === 0) return (await client.query<T>({ text, values })).rows;
    const name = nameOf(text);
    let kept = this.byConnection.get(client);
    if (!kept) this.byConnection.set(client, (kept = new Map()));
    if (!kept.delete(name)) {
      while (kept.size >= this.max) {
        const oldest = kept.keys().next().value as string;
        kept.delete(oldest);
        const parsed = parsedBy(client);
        if (parsed[oldest] === undefined) continue;
        delete parsed[oldest]; // first: whatever happens next, the driver prepares it again if it comes back
        await client.query(`DEALLOCATE "${oldest}"`);
      }
    }
    const result = await client.query<T>({ name, text, values });
    if (parsedBy(client)[name] !== undefined) kept.set(name, true); // most recently used now
    return result.rows;
  }
}
