import { readdirSync, readFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { EMBEDDED_OWNER_ROLE } from '../../src/database/embedded-postgres';
import { ExportPool } from '../../src/database/export-pool';
import { ReadReplicas } from '../../src/database/read-replicas';
import { runCli, spawnCli } from '../support/cli';
import { accessToken, Demo, differences, readEverything } from '../support/full-read';
import { makeStandby, ReplicatedPair, startReplicatedPair } from '../support/standby';
import { Copy } from '../support/sync-journal';
import { WebhookReceiver } from '../support/webhook-receiver';
import { CLI_ENV, WORKER_ENV } from '../support/webhooks-in-process';
import { createTestApp, eventually } from '../support/test-app';

/** The postmaster of the cluster in `dataDir` and its children (its backends, its WAL receiver): what a lost node stops answering with. */
function processesOf(dataDir: string): number[] {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** A wait on replication or a lag check, sized for a machine twice as slow as ours at its busiest. */
const DEADLINE_MS = 30_000;

/**
 * Read replicas (#51) on a real hot standby of a dedicated primary (test/support/standby.ts):
 * the same service on the primary alone and with DATABASE_REPLICA_URLS naming the standby.
 */
describe('read replicas: /v1 reads on a PostgreSQL hot standby (#51)', () => {
  let pair: ReplicatedPair;
  let demo: Demo;
  const apps: NestExpressApplication[] = [];

  /** The CLI on the pair's primary, with the standby as its replica. */
  const cliEnv = (extra: NodeJS.ProcessEnv = {}) => ({
    DATABASE_URL: pair.primary.apiUrl,
    MIGRATION_DATABASE_URL: pair.primary.ownerUrl,
    DATABASE_REPLICA_URLS: pair.standby.apiUrl,
    ...extra,
  });

  /** The service on the pair's primary (`replica`: reading from the standby), listening; its base URL. */
  async function served(
    replica: boolean | string,
    env: NodeJS.ProcessEnv = {},
    urls = { api: pair.primary.apiUrl, owner: pair.primary.ownerUrl },
  ) {
    const replicaUrl = replica === true ? pair.standby.apiUrl : replica;
    const app = await createTestApp({
      urls,
      env: { ...(replicaUrl ? { DATABASE_REPLICA_URLS: replicaUrl, REPLICA_CHECK_INTERVAL_MS: '100' } : {}), ...env },
    });
    apps.push(app);
    await app.listen(0, '127.0.0.1');
    return { app, base: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
  }

  /** Statements of the service's request pool seen on the standby since it started: the reads went there. */
  const readsOnStandby = async (): Promise<number> => {
    const client = new Client({ connectionString: pair.standby.superUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'conversation-read-api' AND backend_type = 'client backend'`,
      );
      return rows[0].n;
    } finally {
      await client.end();
    }
  };

  /** A client of the demo company made by the CLI (on the primary), reading meetings. */
  const newClient = async (name: string) => {
    const created = await runCli(
      cliEnv(),
      'client:create',
      '--company',
      demo.company_id,
      '--name',
      name,
      '--scopes',
      'meetings.read',
      '--json',
    );
    expect(created.code).toBe(0);
    return JSON.parse(created.stdout.trim()) as { client_id: string; client_secret: string };
  };

  /** The error a failed CLI command printed with --json. */
  const failureOf = (run: { code: number; stdout: string }) => {
    expect(run.code).toBe(1);
    return (JSON.parse(run.stdout.trim()) as { error: { code: string; message: string } }).error;
  };

  beforeAll(async () => {
    pair = await startReplicatedPair('replicas');
    const seeded = await runCli(cliEnv(), 'seed:demo', '--json');
    expect(seeded.code).toBe(0);
    demo = JSON.parse(seeded.stdout.trim()) as Demo;
    await pair.standby.caughtUp();
  }, 180_000);
  afterAll(async () => {
    for (const app of apps.splice(0)) await app.close();
    await pair?.stop();
  });

  it('every route answers on the standby as on the primary: a full read of the demo company through both is equal, and the reads ran on the standby', async () => {
    const onPrimary = await served(false);
    const onStandby = await served(true);
    await eventually(async () => onStandby.app.get(ReadReplicas).replicas[0].usable, DEADLINE_MS);
    const truth = await readEverything(onPrimary.base, await accessToken(onPrimary.base, demo.client_id, demo.client_secret));
    const copy = await readEverything(onStandby.base, await accessToken(onStandby.base, demo.client_id, demo.client_secret));
    expect(Object.keys(truth).length).toBeGreaterThan(20);
    expect(differences(copy, truth)).toEqual([]);
    // The bulk shapes and the other routes, answer for answer (the same token on both: one signing key).
    const headers = { Authorization: `Bearer ${await accessToken(onPrimary.base, demo.client_id, demo.client_secret)}` };
    const meetings = Object.values(truth)
      .filter((o) => o.object === 'meeting')
      .map((o) => o.id);
    const paths = [
      '/v1/context',
      '/v1/meetings?limit=100&include=evaluation,answers,transcript',
      '/v1/calls?limit=100&include=transcript',
      '/v1/emails?limit=100&include=messages',
      '/v1/chat?limit=100&include=messages',
      `/v1/meetings?ids=${meetings.slice(0, 3).join(',')}&include=answers`,
      `/v1/meetings/${meetings[0]}/transcript/captions`,
    ];
    for (const path of paths) {
      const [a, b] = await Promise.all([onPrimary.base, onStandby.base].map((base) => fetch(`${base}${path}`, { headers })));
      // Each instance's own: the request id, and its rate-limit counters (in process).
      const answer = async (res: Response) => {
        const text = await res.text();
        if (!res.headers.get('content-type')?.includes('json')) return text;
        const { request_id: _id, ...body } = JSON.parse(text) as { request_id?: string; data?: { rate_limits?: unknown } };
        if (body.data?.rate_limits) delete body.data.rate_limits;
        return body;
      };
      expect([path, b.status, await answer(b)]).toEqual([path, a.status, await answer(a)]);
      expect([path, a.status]).toEqual([path, 200]);
    }
    // The export's records (its trailer names each snapshot's own cursor).
    const [primaryExport, standbyExport] = await Promise.all(
      [onPrimary.base, onStandby.base].map(async (base) =>
        (await (await fetch(`${base}/v1/export?include=messages`, { headers })).text()).trim().split('\n'),
      ),
    );
    expect(standbyExport.slice(0, -1)).toEqual(primaryExport.slice(0, -1));
    expect(JSON.parse(standbyExport.at(-1)!)).toMatchObject({ object: 'export', records: JSON.parse(primaryExport.at(-1)!).records });
    // The access log, where the trail is the main database's: on the standby too, once it replayed the rows.
    const auditor = await runCli(
      cliEnv(),
      'client:create',
      '--company',
      demo.company_id,
      '--name',
      'auditor',
      '--scopes',
      'audit.read',
      '--json',
    );
    const { client_id: auditorId, client_secret: auditorSecret } = JSON.parse(auditor.stdout.trim()) as {
      client_id: string;
      client_secret: string;
    };
    const auditHeaders = { Authorization: `Bearer ${await accessToken(onPrimary.base, auditorId, auditorSecret)}` };
    const seen = (await fetch(`${onPrimary.base}/v1/context`, { headers })).headers.get('x-request-id');
    await pair.standby.caughtUp();
    const audit = await fetch(`${onStandby.base}/v1/audit-events?limit=100`, { headers: auditHeaders });
    expect(audit.status).toBe(200);
    expect(((await audit.json()) as { data: Array<{ request_id: string }> }).data.map((e) => e.request_id)).toContain(seen);
    expect(await readsOnStandby()).toBeGreaterThan(0);
  }, 120_000);

  it('revocation: with the standby not replaying, client:revoke fails loudly naming it; once it replays, the command returns and the very next request through the standby is refused', async () => {
    const { base } = await served(true, { REPLICA_MAX_LAG_SECONDS: '3600' });
    const client = await newClient('to revoke');
    await pair.standby.caughtUp();
    const token = await accessToken(base, client.client_id, client.client_secret);
    const meetings = () => fetch(`${base}/v1/meetings?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
    expect((await meetings()).status).toBe(200);

    await pair.standby.pauseReplay();
    try {
      const refused = await runCli(
        cliEnv({ REPLICA_REVOCATION_WAIT_SECONDS: '2' }),
        'client:revoke',
        '--client',
        client.client_id,
        '--json',
      );
      const error = failureOf(refused);
      expect(error.code).toBe('REPLICA_BEHIND');
      expect(error.message).toContain(`127.0.0.1:${pair.standby.port}/`);
      // What it warns of: the standby, not replaying, still accepts the token.
      expect((await meetings()).status).toBe(200);

      // Run again, the standby resuming while the command waits: it returns only after the replay.
      const again = spawnCli(cliEnv(), 'client:revoke', '--client', client.client_id, '--json');
      const exited = new Promise<number>((resolve) => again.on('exit', (code) => resolve(code ?? -1)));
      let returned = false;
      void exited.then(() => (returned = true));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(returned).toBe(false); // still waiting for the standby
      await pair.standby.resumeReplay();
      expect(await exited).toBe(0);
    } finally {
      await pair.standby.resumeReplay();
    }
    expect((await meetings()).status).toBe(401);
  }, 120_000);

  it('revocation behind one URL for several standbys (a read-only Service): with pg_monitor, the command waits for every standby streaming from the primary, not only the one its connection reached', async () => {
    const client = await newClient('behind a service');
    const superuser = new Client({ connectionString: pair.primary.superUrl });
    await superuser.connect();
    await superuser.query(`GRANT pg_monitor TO ${EMBEDDED_OWNER_ROLE}`);
    // The URL reaches a server that is no standby (as a Service may reach one that caught up): only pg_stat_replication sees the paused one.
    const env = cliEnv({ DATABASE_REPLICA_URLS: pair.primary.apiUrl, REPLICA_REVOCATION_WAIT_SECONDS: '2' });
    await pair.standby.pauseReplay();
    try {
      // Nor does a CLI run without the standbys' URLs return while one is behind.
      const unconfigured = await runCli(
        cliEnv({ DATABASE_REPLICA_URLS: undefined, REPLICA_REVOCATION_WAIT_SECONDS: '2' }),
        'client:disable',
        '--client',
        client.client_id,
        '--json',
      );
      expect(failureOf(unconfigured).code).toBe('REPLICA_BEHIND');
      const refused = await runCli(env, 'client:disable', '--client', client.client_id, '--json');
      const error = failureOf(refused);
      expect(error.code).toBe('REPLICA_BEHIND');
      expect(error.message).toContain('streaming from it');
    } finally {
      await pair.standby.resumeReplay();
    }
    const again = await runCli(env, 'client:disable', '--client', client.client_id, '--json');
    expect(again.code).toBe(0);
    await superuser.query(`REVOKE pg_monitor FROM ${EMBEDDED_OWNER_ROLE}`);
    await superuser.end();
  }, 120_000);

  it('lag: a standby behind by more than REPLICA_MAX_LAG_SECONDS is not read from (a new record is served, by the primary); caught up, it serves again', async () => {
    const { app, base } = await served(true, { REPLICA_MAX_LAG_SECONDS: '1' });
    const replicas = app.get(ReadReplicas);
    await eventually(async () => replicas.replicas[0].usable, DEADLINE_MS);
    const token = await accessToken(base, demo.client_id, demo.client_secret);
    const owner = new Client({ connectionString: pair.primary.ownerUrl });
    await owner.connect();
    await pair.standby.pauseReplay();
    try {
      // The primary writes (its WAL moves on) while the standby replays nothing.
      await owner.query(`UPDATE companies SET name = name WHERE public_id = $1`, [demo.company_id]);
      await eventually(async () => !replicas.replicas[0].usable, DEADLINE_MS);
      expect(replicas.replicas[0].lagSeconds).toBeGreaterThan(1);
      const list = await fetch(`${base}/v1/meetings?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
      expect(list.status).toBe(200);
    } finally {
      await pair.standby.resumeReplay();
      await owner.end();
    }
    await eventually(async () => replicas.replicas[0].usable, DEADLINE_MS);
    expect(replicas.replicas[0].lagSeconds).toBeLessThanOrEqual(1);
  }, 120_000);

  it('feed and export: an export on the standby, then the feed from its Feed-Cursor alternating between the primary and a lagging standby under seed:activity, ends equal to a full read', async () => {
    const onPrimary = await served(false);
    const onStandby = await served(true, { REPLICA_MAX_LAG_SECONDS: '3600' });
    await eventually(async () => onStandby.app.get(ReadReplicas).replicas[0].usable, DEADLINE_MS);
    const token = await accessToken(onPrimary.base, demo.client_id, demo.client_secret);
    const headers = { Authorization: `Bearer ${token}` };

    const copy: Copy = {};
    const exported = await fetch(`${onStandby.base}/v1/export?include=messages`, { headers });
    expect(exported.status).toBe(200);
    let cursor = exported.headers.get('feed-cursor');
    expect(cursor).toMatch(/^cur_/);
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.pop()).toMatchObject({ object: 'export' });

    const activity = spawnCli(cliEnv(), 'seed:activity', '--company', demo.company_id, '--minutes', '0.3', '--rate', '600', '--seed', '51');
    const done = new Promise<number>((resolve) => activity.on('exit', (code) => resolve(code ?? -1)));
    let finished = false;
    void done.then(() => (finished = true));
    let page = 0;
    const entries: Array<{ object: string; object_id: string; action: string }> = [];
    const follow = async () => {
      for (;;) {
        const base = page++ % 2 ? onStandby.base : onPrimary.base;
        const res = await fetch(`${base}/v1/changes?limit=50&cursor=${cursor}`, { headers });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { data: typeof entries; pagination: { next_cursor: string; has_more: boolean } };
        entries.push(...body.data);
        cursor = body.pagination.next_cursor;
        if (!body.pagination.has_more) return;
      }
    };
    // The standby lags in stretches: replay paused for a while, then resumed, while the client reads both.
    while (!finished) {
      await pair.standby.pauseReplay();
      await follow();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await follow();
      await pair.standby.resumeReplay();
      await follow();
    }
    expect(await done).toBe(0);
    await pair.standby.caughtUp();
    await follow();
    expect(entries.length).toBeGreaterThan(0);

    // The copy: what the export held, then every object the feed named read again on the primary (gone: 404).
    const truth = await readEverything(onPrimary.base, token);
    // The feed's and the copy's object names: a conversation's line is `email_conversation` or `chat_conversation`.
    const feedObject = (line: Record<string, unknown>) => String(line.object).replace(/_conversation$/, '');
    const exportedKeys = new Set(lines.map((l) => `${feedObject(l)}:${String(l.id)}`));
    for (const line of lines) {
      const messages = (line.included as { messages?: unknown } | undefined)?.messages as
        { data?: Array<{ id: string }> } | Array<{ id: string }> | undefined;
      for (const message of (Array.isArray(messages) ? messages : messages?.data) ?? [])
        exportedKeys.add(`${feedObject(line)}_message:${message.id}`);
    }
    const named = new Set(entries.map((e) => `${e.object}:${e.object_id}`));
    for (const key of Object.keys(truth)) {
      // Every live object is in the export or named by the feed since its cursor.
      // (A message is also re-read with its conversation, when the feed names the conversation's messages.)
      const { object, parent_id: parent } = truth[key];
      const withParent = parent !== null && named.has(`${object.replace(/_message$/, '')}:${parent}`);
      if (!exportedKeys.has(key) && !named.has(key) && !withParent) copy[key] = truth[key];
    }
    expect(Object.keys(copy)).toEqual([]);
    // And every object the export held that is gone now was told deleted.
    const deleted = new Set(entries.filter((e) => e.action === 'deleted').map((e) => `${e.object}:${e.object_id}`));
    const gone = [...exportedKeys].filter((key) => !(key in truth) && !deleted.has(key));
    expect(gone).toEqual([]);
  }, 240_000);

  it('two standbys, one behind: the feed read on one instance names an object only once the instance reading the other standby serves it (never a 404 for a live object, never an older version)', async () => {
    const second = await makeStandby(pair.primary, join(process.env.TEST_ROOT!, `replicas-second-${process.pid}`));
    const owner = await new DataSource(
      dataSourceOptions(pair.primary.ownerUrl, { poolSize: 2, applicationName: 'tests-owner' }),
    ).initialize();
    try {
      const env = { REPLICA_MAX_LAG_SECONDS: '2' };
      const feedSide = await served(true, env);
      const objectSide = await served(second.apiUrl, env);
      for (const side of [feedSide, objectSide]) await eventually(async () => side.app.get(ReadReplicas).replicas[0].usable, DEADLINE_MS);
      const token = await accessToken(feedSide.base, demo.client_id, demo.client_secret);
      const headers = { Authorization: `Bearer ${token}` };
      const now = await fetch(`${feedSide.base}/v1/changes?start=now&types=meeting`, { headers });
      let cursor = ((await now.json()) as { pagination: { next_cursor: string } }).pagination.next_cursor;

      await second.pauseReplay();
      const [{ id: companyId }] = await owner.query<Array<{ id: string }>>('SELECT id::text AS id FROM companies WHERE public_id = $1', [
        demo.company_id,
      ]);
      const people = new RecordingsFactory(owner, companyId);
      const meeting = await people.recording('meeting', { owner: await people.user() });
      await pair.standby.caughtUp();
      const committed = Date.now();
      let named = false;
      await eventually(async () => {
        const res = await fetch(`${feedSide.base}/v1/changes?types=meeting&cursor=${cursor}`, { headers });
        const body = (await res.json()) as { data: Array<{ object_id: string }>; pagination: { next_cursor: string } };
        cursor = body.pagination.next_cursor;
        named = body.data.some((e) => e.object_id === meeting.publicId);
        return named;
      }, DEADLINE_MS);
      const waited = Date.now() - committed;
      // The client fetches what the entry names, through another instance: its standby has not replayed the meeting.
      const detail = await fetch(`${objectSide.base}/v1/meetings/${meeting.publicId}`, { headers });
      expect(detail.status).toBe(200);
      expect(waited).toBeGreaterThanOrEqual(2000); // held for REPLICA_MAX_LAG_SECONDS at least
    } finally {
      await second.resumeReplay().catch(() => undefined);
      await owner.destroy();
      await second.stop();
    }
  }, 120_000);

  it('webhooks: the worker knows the standbys and sends an event only once every standby read from may serve its object (REPLICA_MAX_LAG_SECONDS after it was final, at least)', async () => {
    const receiver = await WebhookReceiver.start();
    const owner = await new DataSource(
      dataSourceOptions(pair.primary.ownerUrl, { poolSize: 2, applicationName: 'tests-owner' }),
    ).initialize();
    try {
      const { app } = await served(true, { ...WORKER_ENV, REPLICA_MAX_LAG_SECONDS: '2' });
      await eventually(async () => app.get(ReadReplicas).replicas[0].usable, DEADLINE_MS);
      const added = await runCli(
        cliEnv(CLI_ENV),
        'webhooks:add',
        '--company',
        demo.company_id,
        '--url',
        receiver.url,
        '--types',
        'meeting',
        '--json',
      );
      expect(added.code).toBe(0);
      const [{ id: companyId }] = await owner.query<Array<{ id: string }>>('SELECT id::text AS id FROM companies WHERE public_id = $1', [
        demo.company_id,
      ]);
      const people = new RecordingsFactory(owner, companyId);
      const meeting = await people.recording('meeting', { owner: await people.user() });
      const committed = Date.now();
      await eventually(async () => receiver.received.some((r) => r.event.data.object_id === meeting.publicId), DEADLINE_MS);
      const sent = receiver.received.find((r) => r.event.data.object_id === meeting.publicId)!;
      expect(sent.at - committed).toBeGreaterThanOrEqual(2000);
    } finally {
      await receiver.close();
      await owner.destroy();
    }
  }, 120_000);

  it('export slots are taken on the primary whatever server the snapshot reads: an instance reading the standby and one reading the primary share them', async () => {
    const a = await served(true);
    const b = await served(false);
    await eventually(async () => a.app.get(ReadReplicas).replicas[0].usable, DEADLINE_MS);
    const onStandby = (await a.app.get(ExportPool).tryLease())!;
    const onPrimary = (await b.app.get(ExportPool).tryLease())!;
    try {
      expect(onStandby.replica).toBe(`127.0.0.1:${pair.standby.port}/${pair.primary.database}`);
      expect(onPrimary.replica).toBeUndefined();
      await onPrimary.client.query('BEGIN');
      expect(await onStandby.tryLock('conversation-read-api:export:test:0')).toBe(true);
      expect(await onPrimary.tryLock('conversation-read-api:export:test:0')).toBe(false); // held on the primary
      expect(await onPrimary.tryLock('conversation-read-api:export:test:1')).toBe(true);
      await onPrimary.client.query('ROLLBACK');
    } finally {
      onStandby.release();
      onPrimary.release();
    }
    // Given back with the lease: the primary holds no advisory lock of it any more.
    const owner = new Client({ connectionString: pair.primary.superUrl });
    await owner.connect();
    try {
      await eventually(async () => (await owner.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory'`)).rowCount === 0, DEADLINE_MS);
    } finally {
      await owner.end();
    }
  }, 120_000);

  it('a standby that stops answering (its node lost: no error, no reset) is left within two checks, and reads go on on the primary', async () => {
    const { app, base } = await served(true, { REPLICA_MAX_LAG_SECONDS: '3600' });
    const replicas = app.get(ReadReplicas);
    await eventually(async () => replicas.replicas[0].usable, DEADLINE_MS);
    const headers = { Authorization: `Bearer ${await accessToken(base, demo.client_id, demo.client_secret)}` };
    const frozen = processesOf(pair.standby.dataDir);
    for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    try {
      await eventually(async () => !replicas.replicas[0].usable, DEADLINE_MS);
      const res = await fetch(`${base}/v1/meetings?limit=1`, { headers, signal: AbortSignal.timeout(DEADLINE_MS) });
      expect(res.status).toBe(200);
    } finally {
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
    }
    await eventually(async () => replicas.replicas[0].usable, DEADLINE_MS);
  }, 120_000);

  it("a standby URL whose role may bypass row-level security (the schema owner's) refuses the start, as DATABASE_URL's does", async () => {
    await expect(served(pair.standby.ownerUrl)).rejects.toThrow(/CAN BYPASS ROW-LEVEL SECURITY.*DATABASE_REPLICA_URLS/);
  }, 120_000);

  it('failover: the standby promoted, the service pointed at it, a cursor handed out by the old primary sees every change made after', async () => {
    const onPrimary = await served(false);
    const token = await accessToken(onPrimary.base, demo.client_id, demo.client_secret);
    const headers = { Authorization: `Bearer ${token}` };
    const head = await fetch(`${onPrimary.base}/v1/changes?start=now`, { headers });
    expect(head.status).toBe(200);
    let cursor = ((await head.json()) as { pagination: { next_cursor: string } }).pagination.next_cursor;
    await pair.standby.caughtUp();
    await onPrimary.app.close();
    apps.splice(apps.indexOf(onPrimary.app), 1);

    await pair.standby.promote();
    const promoted = { api: pair.standby.apiUrl, owner: pair.standby.ownerUrl };
    const activity = await runCli(
      { DATABASE_URL: promoted.api, MIGRATION_DATABASE_URL: promoted.owner },
      'seed:activity',
      '--company',
      demo.company_id,
      '--minutes',
      '0.05',
      '--rate',
      '600',
      '--seed',
      '52',
    );
    expect(activity.code).toBe(0);
    const onPromoted = await served(false, {}, promoted);
    const named = new Set<string>();
    for (;;) {
      const res = await fetch(`${onPromoted.base}/v1/changes?limit=100&cursor=${cursor}`, { headers });
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        data: Array<{ object: string; object_id: string }>;
        pagination: { next_cursor: string; has_more: boolean };
      };
      for (const e of body.data) named.add(`${e.object}:${e.object_id}`);
      cursor = body.pagination.next_cursor;
      if (!body.pagination.has_more) break;
    }
    // Every object written on the promoted server after the cursor is named.
    const owner = new Client({ connectionString: promoted.owner });
    await owner.connect();
    try {
      const { rows } = await owner.query<{ key: string }>(
        `SELECT DISTINCT c.object || ':' || c.object_id AS key FROM change_log c
           WHERE c.epoch > (SELECT max(epoch) FROM change_epochs WHERE server_started_at <> pg_postmaster_start_time())`,
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.map((r) => r.key).filter((key) => !named.has(key))).toEqual([]);
    } finally {
      await owner.end();
    }
  }, 180_000);
});
