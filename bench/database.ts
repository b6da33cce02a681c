import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'pg';
import { DatabaseUrls } from '../src/config/database-urls';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { migrate } from '../src/database/migrate';

/** The bench's PostgreSQL: an embedded cluster of its own, or the servers named by the environment. */
export class BenchDatabase {
  private constructor(
    readonly urls: DatabaseUrls,
    /** The schema owner's connection, for what the bench reads and prepares directly. */
    readonly owner: Client,
    readonly description: string,
    private readonly embedded?: EmbeddedDatabase,
  ) {}

  /**
   * With `DATABASE_URL` (and `MIGRATION_DATABASE_URL` for the owner), those servers;
   * otherwise a fresh embedded cluster under `dataDir`. Either way the schema is migrated.
   */
  static async open(dataDir: string, log: (line: string) => void): Promise<BenchDatabase> {
    let urls: DatabaseUrls;
    let embedded: EmbeddedDatabase | undefined;
    if (process.env.DATABASE_URL) {
      const api = process.env.DATABASE_URL;
      const owner = process.env.MIGRATION_DATABASE_URL ?? api;
      urls = new DatabaseUrls(api, owner, process.env.AUDIT_DATABASE_URL ?? api, process.env.AUDIT_MIGRATION_DATABASE_URL);
    } else {
      await rm(dataDir, { recursive: true, force: true });
      embedded = await startEmbeddedPostgres(dataDir, { database: 'conversations_bench' });
      urls = new DatabaseUrls(embedded.apiUrl, embedded.ownerUrl, embedded.apiUrl);
    }
    try {
      await migrate(urls);
      const owner = new Client({ connectionString: urls.owner, application_name: 'conversation-read-api-bench' });
      await owner.connect();
      const { rows } = await owner.query<{ version: string; shared_buffers: string }>(
        `SELECT current_setting('server_version') AS version, current_setting('shared_buffers') AS shared_buffers`,
      );
      const where = embedded ? `embedded, port ${embedded.port}` : new URL(urls.api).host;
      const description = `PostgreSQL ${rows[0].version} (${where}), shared_buffers ${rows[0].shared_buffers}`;
      log(description);
      return new BenchDatabase(urls, owner, description, embedded);
    } catch (error) {
      await embedded?.stop();
      throw error;
    }
  }

  /**
   * `VACUUM (ANALYZE)` of the whole database, as a long-running database would be after
   * autovacuum, then a `CHECKPOINT`, so that writing out what the seeding and the vacuum dirtied
   * does not fall into the measurements (it needs a superuser or pg_checkpoint: with the
   * embedded cluster always; with DATABASE_URL when the owner may, otherwise skipped).
   */
  async vacuumAnalyze(): Promise<void> {
    await this.owner.query('VACUUM (ANALYZE)');
    await this.checkpoint();
  }

  /** A `CHECKPOINT`, where the connection may run one: what is dirty so far is written out before a measurement. */
  async checkpoint(): Promise<void> {
    const superuser = this.embedded ? new Client({ connectionString: this.embedded.superUrl }) : this.owner;
    try {
      if (superuser !== this.owner) await superuser.connect();
      await superuser.query('CHECKPOINT');
    } catch {
      // No right to checkpoint: the server's own checkpoints will do.
    } finally {
      if (superuser !== this.owner) await superuser.end().catch(() => undefined);
    }
  }

  async internalCompanyId(publicId: string): Promise<string> {
    const { rows } = await this.owner.query<{ id: string }>('SELECT id::text AS id FROM companies WHERE public_id = $1', [publicId]);
    if (!rows.length) throw new Error(`company ${publicId} not found`);
    return rows[0].id;
  }

  /** Closes the connection; stops and deletes the embedded cluster unless `keep`. */
  async close(keep: boolean, dataDir: string): Promise<void> {
    await this.owner.end().catch(() => undefined);
    if (!this.embedded) return;
    await this.embedded.stop();
    if (!keep) await rm(dataDir, { recursive: true, force: true });
  }
}

/** Runs an admin CLI command (the compiled one) with `--json` and returns its answer. */
export async function cli<T>(env: NodeJS.ProcessEnv, args: string[], options: { progress?: boolean } = {}): Promise<T> {
  const child = spawn(process.execPath, [join('dist', 'src', 'cli', 'main.js'), ...args, '--json'], {
    env,
    // The progress bar of seed:volume goes to stderr, shown when the bench runs on a terminal.
    stdio: ['ignore', 'pipe', options.progress ? 'inherit' : 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`cli ${args.join(' ')} failed (${code}): ${stdout}${stderr}`);
  return JSON.parse(stdout) as T;
}
