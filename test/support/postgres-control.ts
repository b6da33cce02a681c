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

export async function stopFaultsCluster(): Promise<void> {
  await pgCtl(process.env.TEST_FAULTS_DATA_DIR!, ['stop', '-m', 'fast', '-w']);
}

export async function startFaultsCluster(): Promise<void> {
  const port = process.env.TEST_FAULTS_PORT!;
  await pgCtl(process.env.TEST_FAULTS_DATA_DIR!, [
    'start',
    '-w',
    '-l',
    join(process.env.TEST_FAULTS_DATA_DIR!, 'restart.log'), // inside the cluster directory: writable by its owner
    '-o',
    `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=`,
  ]);
}
