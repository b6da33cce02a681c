import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { packagedBuild, startEmbeddedPostgres } from '../../src/database/embedded-postgres';

async function currentUser(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ current_user: string }>('SELECT current_user')).rows[0].current_user;
  } finally {
    await client.end();
  }
}

/**
 * Root in a private directory (a clone in `mktemp -d`, or under /root) is how containers and CI
 * run us: PostgreSQL refuses root and runs as "postgres", which cannot enter a mode-700 parent.
 */
describe('embedded PostgreSQL below a private (mode 700) parent', () => {
  let privateDir: string;
  let homes: string[];

  beforeAll(async () => {
    privateDir = await mkdtemp(join(tmpdir(), 'conv-api-private-')); // mkdtemp makes it 0700
    await chmod(privateDir, 0o700);
    // Where a root run keeps what "postgres" must reach: a fresh home of this test's own.
    const shared = await mkdtemp(join(tmpdir(), 'conv-api-homes-'));
    await chmod(shared, 0o755);
    homes = [join(shared, 'home')];
  });
  afterAll(async () => {
    await rm(privateDir, { recursive: true, force: true });
    await rm(join(homes[0], '..'), { recursive: true, force: true });
  });

  it('initialises, serves, stops and starts again with its data', async () => {
    const dataDir = join(privateDir, 'data');
    const first = await startEmbeddedPostgres(dataDir, { database: 'private_test', homes });
    try {
      expect(await currentUser(first.apiUrl)).toBe('conv_api');
      const owner = new Client({ connectionString: first.ownerUrl });
      await owner.connect();
      await owner.query('CREATE TABLE kept (value text)');
      await owner.query(`INSERT INTO kept VALUES ('still here')`);
      await owner.end();
    } finally {
      await first.stop();
    }
    const state = JSON.parse(await readFile(join(dataDir, 'postgres.json'), 'utf8')) as { clusterDir?: string };
    if (userInfo().uid === 0) {
      // The cluster could not live under the private parent: it lives in the reachable home, and the state file says where.
      expect(state.clusterDir).toBeDefined();
      expect(state.clusterDir!.startsWith(homes[0])).toBe(true);
      expect(first.dataDir).toBe(state.clusterDir);
    } else {
      expect(first.dataDir).toBe(join(dataDir, 'postgres'));
    }

    const second = await startEmbeddedPostgres(dataDir, { database: 'private_test', homes });
    try {
      expect(second.dataDir).toBe(first.dataDir);
      const owner = new Client({ connectionString: second.ownerUrl });
      await owner.connect();
      expect((await owner.query('SELECT value FROM kept')).rows).toEqual([{ value: 'still here' }]);
      await owner.end();
    } finally {
      await second.stop();
    }
  });

  it('attaches to the cluster a running process started instead of starting a second one', async () => {
    const dataDir = join(privateDir, 'attached');
    const server = await startEmbeddedPostgres(dataDir, { database: 'attached_test', homes });
    try {
      const cli = await startEmbeddedPostgres(dataDir, { database: 'attached_test', homes });
      expect(cli.owned).toBe(false);
      expect(cli.port).toBe(server.port);
      expect(await currentUser(cli.apiUrl)).toBe('conv_api');
    } finally {
      await server.stop();
    }
  });

  it('starts afresh when DATA_DIR was deleted, leaving no stale cluster behind', async () => {
    const dataDir = join(privateDir, 'afresh');
    const first = await startEmbeddedPostgres(dataDir, { database: 'afresh_test', homes });
    await first.stop();
    await rm(dataDir, { recursive: true, force: true });
    const second = await startEmbeddedPostgres(dataDir, { database: 'afresh_test', homes });
    try {
      expect(await currentUser(second.ownerUrl)).toBe('conv_owner');
    } finally {
      await second.stop();
    }
  });

  it('runs a PostgreSQL build that sits in a private directory (as root: from a reachable copy)', async () => {
    const build = join(privateDir, 'node_modules', 'native');
    await cp(packagedBuild(), build, { recursive: true, verbatimSymlinks: true });
    const db = await startEmbeddedPostgres(join(privateDir, 'own-build'), { database: 'build_test', homes, buildDir: build });
    try {
      expect(await currentUser(db.apiUrl)).toBe('conv_api');
      if (userInfo().uid === 0) {
        expect(db.buildDir.startsWith(homes[0])).toBe(true);
        expect(existsSync(join(db.buildDir, 'bin', 'postgres'))).toBe(true);
        // The server really runs as the unprivileged account, from the copy.
        const ps = execFileSync('ps', ['-o', 'user=,args=', '-C', 'postgres']).toString();
        expect(ps).toMatch(new RegExp(`^postgres\\s+${db.buildDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/bin/postgres`, 'm'));
      } else {
        expect(db.buildDir).toBe(build);
      }
    } finally {
      await db.stop();
    }
  });
});
