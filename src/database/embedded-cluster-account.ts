import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, chown, cp, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/*
 * Who runs an embedded cluster and where it may live: as root, PostgreSQL runs as an
 * unprivileged account, which must reach the build and the cluster's directory (copies of them
 * go to a home it can reach when a parent directory is private).
 */

/** PostgreSQL refuses to run as root: as root, the cluster runs as this unprivileged account. */
export const CLUSTER_ACCOUNT = 'postgres';

/** A refusal to start that the operator can act on: its message says what to do. */
export class EmbeddedDatabaseError extends Error {
  readonly code = 'EMBEDDED_DATABASE_UNAVAILABLE';
}

/** Who the cluster's processes run as: nobody else when we are not root. */
export type Account = { uid: number; gid: number } | undefined;

/** The account the cluster runs as: `postgres` (created if missing) when we are root. */
export function clusterAccount(): Account {
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
export async function reachableBuild(buildDir: string, account: Account, homes: string[], log: (line: string) => void): Promise<string> {
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
export async function reachableClusterDir(
  dataDir: string,
  account: Account,
  homes: string[],
  state: { clusterDir?: string } | null,
): Promise<string> {
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
