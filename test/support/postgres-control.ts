import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** pg_ctl of the embedded binaries, run as the cluster's owner: lets a fault test stop and restart its cluster. */
export async function pgCtl(dataDir: string, args: string[]): Promise<void> {
  const bin = process.env.TEST_PG_CTL!;
  const ids = userInfo().uid === 0 ? await postgresIds() : {};
  await run(bin, ['-D', dataDir, ...args], { ...ids, env: { LC_MESSAGES: 'C', PATH: process.env.PATH } });
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Fast shutdown of the cluster in `dataDir` (every connection, busy or idle, is terminated), waited for. */
export async function stopCluster(dataDir: string): Promise<void> {
  await pgCtl(dataDir, ['stop', '-m', 'fast', '-w']);
}

/**
 * Starts the cluster in `dataDir` again, on the port it had (its clients' URLs stay right), waited
 * for; `settings` are server settings for this start only (`-c name=value`).
 */
export async function startCluster(dataDir: string, port: number | string, settings: Record<string, string> = {}): Promise<void> {
  const extra = Object.entries(settings).map(([name, value]) => ` -c ${name}=${value}`);
  await pgCtl(dataDir, [
    'start',
    '-w',
    '-l',
    join(dataDir, 'restart.log'), // inside the cluster directory: writable by its owner
    '-o',
    `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${extra.join('')}`,
  ]);
}

export async function stopFaultsCluster(): Promise<void> {
  await stopCluster(process.env.TEST_FAULTS_DATA_DIR!);
}

export async function startFaultsCluster(settings: Record<string, string> = {}): Promise<void> {
  await startCluster(process.env.TEST_FAULTS_DATA_DIR!, process.env.TEST_FAULTS_PORT!, settings);
}
