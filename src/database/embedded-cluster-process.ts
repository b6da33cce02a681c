import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Account } from './embedded-cluster-account';

/* The PostgreSQL programs of an embedded cluster: initdb once, then the postmaster started and stopped. */

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

export async function initialise(
  buildDir: string,
  clusterDir: string,
  superPassword: string,
  account: Account,
  log: (line: string) => void,
) {
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

/** Starts the postmaster and resolves once it accepts connections (read-only ones: a hot standby's). */
export function startServer(
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
      if (/database system is ready to accept (read-only )?connections/.test(output)) {
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
export function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once('exit', () => resolve());
    server.kill('SIGINT');
  });
}
