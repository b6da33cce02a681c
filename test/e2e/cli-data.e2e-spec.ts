import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { DOCUMENT_FORMAT } from '../../src/recordings/recording.sql';
import { loadConfig } from '../../src/config/app-config';
import { ACTIVITY_KINDS } from '../../src/seeding/activity-simulator';
import { DemoSeeder } from '../../src/seeding/demo-seeder';
import { createCompany } from '../support/factories';
import { cli, onlyJson, spawnCli } from '../support/cli';
import { ownerDataSource } from '../support/test-app';

describe('admin CLI: audit', () => {
  let owner: DataSource;
  let a: Company;
  let b: Company;

  beforeAll(async () => {
    owner = await ownerDataSource();
    [a, b] = await Promise.all([createCompany(owner), createCompany(owner)]);
    const rows = [
      [a.publicId, '2026-05-01T10:00:00Z', 'req_a1', 200],
      [a.publicId, '2026-05-01T10:01:00Z', 'req_a2', 404],
      [a.publicId, '2026-05-01T10:02:00Z', 'req_a3', 200],
      [b.publicId, '2026-05-01T10:03:00Z', 'req_b1', 200],
    ];
    for (const [company, at, requestId, status] of rows) {
      await owner.query(
        `INSERT INTO audit_events (occurred_at, request_id, company, client, address, method, route, path_params, query, status, resource_ids)
         VALUES ($1, $2, $3, 'cli_x', '127.0.0.1', 'GET', 'GET /v1/meetings', '{}', '{}', $4, '["mtg_1"]')`,
        [at, requestId, company, status],
      );
    }
  });
  afterAll(() => owner.destroy());

  it('audit:tail --json prints the company latest events, oldest first, and nothing of other companies', async () => {
    const res = await cli('audit:tail', '--company', a.publicId, '--json');
    expect(res.code).toBe(0);
    const out = onlyJson(res.stdout) as { data: Array<Record<string, unknown>> };
    expect(out.data.map((e) => e.request_id)).toEqual(['req_a1', 'req_a2', 'req_a3']);
    expect(out.data[1]).toEqual({
      occurred_at: '2026-05-01T10:01:00.000000Z',
      request_id: 'req_a2',
      company: a.publicId,
      client: 'cli_x',
      address: '127.0.0.1',
      method: 'GET',
      route: 'GET /v1/meetings',
      path_params: {},
      query: {},
      status: 404,
      resource_ids: ['mtg_1'],
      truncated: false,
      attempts: 1,
    });
  });

  it('audit:tail --limit keeps the latest, --since the later ones', async () => {
    const limited = onlyJson((await cli('audit:tail', '--company', a.publicId, '--limit', '2', '--json')).stdout) as {
      data: Array<{ request_id: string }>;
    };
    expect(limited.data.map((e) => e.request_id)).toEqual(['req_a2', 'req_a3']);
    const since = onlyJson((await cli('audit:tail', '--company', a.publicId, '--since', '2026-05-01T07:00:30-03:00', '--json')).stdout) as {
      data: Array<{ request_id: string }>;
    };
    expect(since.data.map((e) => e.request_id)).toEqual(['req_a2', 'req_a3']);
  });

  it('audit:tail filters as GET /v1/audit-events does: --status (code or class), --route, --occurred-after/--occurred-before, --resource-id', async () => {
    const tail = async (...args: string[]) =>
      (
        onlyJson((await cli('audit:tail', '--company', a.publicId, ...args, '--json')).stdout) as { data: Array<{ request_id: string }> }
      ).data.map((e) => e.request_id);
    expect(await tail('--status', '4xx')).toEqual(['req_a2']);
    expect(await tail('--status', '200')).toEqual(['req_a1', 'req_a3']);
    expect(await tail('--route', 'GET /v1/meetings')).toEqual(['req_a1', 'req_a2', 'req_a3']);
    expect(await tail('--route', 'GET /v1/calls')).toEqual([]);
    expect(await tail('--occurred-before', '2026-05-01T10:01:30Z')).toEqual(['req_a1', 'req_a2']);
    expect(await tail('--status', '200', '--occurred-after', '2026-05-01T10:00:30Z')).toEqual(['req_a3']);
    expect(await tail('--resource-id', `mtg_${'0'.repeat(22)}`)).toEqual([]);
  });

  it('audit:tail without --json prints one line per event', async () => {
    const res = await cli('audit:tail', '--company', b.publicId);
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe('2026-05-01T10:03:00.000000Z req_b1 200 GET GET /v1/meetings cli_x 127.0.0.1');
  });

  it.each([
    [['audit:tail'], 'INVALID_ARGUMENTS'],
    [['audit:tail', '--company', 'cmp_000000000000000000000a'], 'COMPANY_NOT_FOUND'],
    [['audit:tail', '--company', 'A', '--limit', '0'], 'INVALID_ARGUMENTS'],
    [['audit:tail', '--company', 'A', '--limit', 'many'], 'INVALID_ARGUMENTS'],
    [['audit:tail', '--company', 'A', '--since', 'yesterday'], 'INVALID_ARGUMENTS'],
    [['audit:tail', '--company', 'A', '--status', '4x'], 'INVALID_ARGUMENTS'],
    [['audit:tail', '--company', 'A', '--client-id', 'cli_x'], 'INVALID_ARGUMENTS'],
    [['audit:tail', '--company', 'A', '--route', '/v1/meetings'], 'INVALID_ARGUMENTS'],
    [['audit:tail', '--company', 'A', '--resource-id', 'mtg_1'], 'INVALID_ARGUMENTS'],
    [['audit:tail', '--company', 'A', '--since', '2026-01-01T00:00:00Z', '--occurred-after', '2026-01-01T00:00:00Z'], 'INVALID_ARGUMENTS'],
  ])('%j fails with its code', async (args, code) => {
    const res = await cli(...args.map((x) => (x === 'A' ? a.publicId : x)), '--json');
    expect(res.code).not.toBe(0);
    expect(onlyJson(res.stdout)).toEqual({ error: { code, message: expect.any(String) } });
  });
});

describe('admin CLI: seeds', () => {
  let owner: DataSource;
  beforeAll(async () => {
    owner = await ownerDataSource();
  });
  afterAll(() => owner.destroy());

  it('seed:demo --json prints exactly {company_id, client_id, client_secret} of a new company with data', async () => {
    const res = await cli('seed:demo', '--json');
    expect(res.code).toBe(0);
    const out = onlyJson(res.stdout) as Record<string, string>;
    expect(Object.keys(out)).toEqual(['company_id', 'client_id', 'client_secret']);
    expect(out.client_id).toMatch(/^cli_/);
    expect(out.client_secret).toMatch(/^secret_/);
    const company = await owner.getRepository(Company).findOneByOrFail({ publicId: out.company_id });
    const [{ count }] = await owner.query('SELECT count(*)::int AS count FROM recordings WHERE company_id = $1', [company.id]);
    expect(count).toBeGreaterThanOrEqual(50);
    // Its records' documents are written by the worker, or now by documents:refresh.
    const refresh = await cli('documents:refresh', '--json');
    expect(refresh.code).toBe(0);
    const run = onlyJson(refresh.stdout) as Record<string, number>;
    expect(Object.keys(run).sort()).toEqual(['added', 'batches', 'removed', 'rendered', 'seconds']);
    expect(run.batches).toBeGreaterThanOrEqual(1);
    const [docs] = await owner.query(
      'SELECT count(*)::int AS n, count(*) FILTER (WHERE format = $2)::int AS current FROM recording_documents WHERE company_id = $1',
      [company.id, DOCUMENT_FORMAT],
    );
    expect(docs).toEqual({ n: count, current: count });
  }, 60_000);
});

describe('admin CLI: seed:activity', () => {
  let owner: DataSource;
  let company: Company;
  beforeAll(async () => {
    owner = await ownerDataSource();
    const demo = await DemoSeeder.over(owner, loadConfig({ NODE_ENV: 'test' })).seed();
    company = await owner.getRepository(Company).findOneByOrFail({ publicId: demo.company_id });
  }, 60_000);
  afterAll(() => owner.destroy());

  it('--json prints one summary object of a short run, whose writes are in the database', async () => {
    // Messages have no instant of their own capture: what is newer than the newest id before the run was written by it.
    const [before] = await owner.query(
      `SELECT now() AS at, (SELECT coalesce(max(id), 0) FROM chat_messages) AS chat, (SELECT coalesce(max(id), 0) FROM email_messages) AS email`,
    );
    const res = await cli('seed:activity', '--company', company.publicId, '--minutes', '0.05', '--rate', '1200', '--seed', '1', '--json');
    expect(res.code).toBe(0);
    expect(res.stderr).toBe(''); // with --json, stderr tells only of unexpected failures
    const out = onlyJson(res.stdout) as { events: Record<string, number> } & Record<string, number | string>;
    expect(Object.keys(out)).toEqual(['company_id', 'seconds', 'transactions', 'committed', 'rolled_back', 'events']);
    expect(out.company_id).toBe(company.publicId);
    expect(out.seconds).toBeGreaterThanOrEqual(3);
    expect(Object.keys(out.events)).toEqual([...ACTIVITY_KINDS]);
    expect(Object.values(out.events).reduce((a, b) => a + b, 0)).toBe(out.committed);
    expect(out.transactions).toBe(Number(out.committed) + Number(out.rolled_back));
    expect(out.committed).toBeGreaterThanOrEqual(20);
    const [written] = await owner.query(
      `SELECT (SELECT count(*)::int FROM recordings WHERE company_id = $1 AND created_at >= $2) AS recordings,
         (SELECT count(*)::int FROM chat_messages WHERE company_id = $1 AND (id > $3 OR edited_at >= $2 OR deleted_at >= $2)) AS chat,
         (SELECT count(*)::int FROM email_messages WHERE company_id = $1 AND id > $4) AS emails`,
      [company.id, before.at, before.chat, before.email],
    );
    expect(written.recordings).toBeGreaterThan(0);
    expect(written.recordings).toBeLessThanOrEqual(out.events.meeting_captured + out.events.call_captured);
    expect(written.chat).toBeGreaterThan(0);
    expect(written.emails).toBe(out.events.email_captured + out.events.email_captured_late);
  }, 60_000);

  it('without --json writes a line per event on stderr, and SIGINT ends it cleanly with its summary', async () => {
    const child = spawnCli({}, 'seed:activity', '--company', company.publicId, '--minutes', '10', '--rate', '600');
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) =>
      child.stderr!.on('data', (chunk) => {
        stderr += chunk;
        if (stderr.split('\n').length > 5) resolve();
      }),
    );
    const signalled = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000); // held transactions end their hold at once
    expect(stderr).toMatch(/^\d{4}-\d\d-\d\dT\S+Z tx \d+ (committed|rolled_back) [a-z_]+ \w+/m);
    expect(stderr).not.toMatch(/ failed /);
    expect(stdout).toMatch(
      new RegExp(
        `^activity on ${company.publicId}: \\d+ transactions in [\\d.]+ s \\(\\d+ committed, \\d+ rolled back\\): meeting_captured \\d+`,
      ),
    );
  }, 60_000);

  it.each([
    [['seed:activity'], 'INVALID_ARGUMENTS'],
    [['seed:activity', '--company', 'cmp_000000000000000000000a'], 'COMPANY_NOT_FOUND'],
    [['seed:activity', '--company', 'C', '--minutes', '0'], 'INVALID_ARGUMENTS'],
    [['seed:activity', '--company', 'C', '--minutes', 'forever'], 'INVALID_ARGUMENTS'],
    [['seed:activity', '--company', 'C', '--rate', '100000'], 'INVALID_ARGUMENTS'],
    [['seed:activity', '--company', 'C', '--seed', '-1'], 'INVALID_ARGUMENTS'],
  ])('%j fails with its code and writes nothing', async (args, code) => {
    const [before] = await owner.query('SELECT count(*)::int AS n FROM recordings WHERE company_id = $1', [company.id]);
    const res = await cli(...args.map((a) => (a === 'C' ? company.publicId : a)), '--json');
    expect(res.code).not.toBe(0);
    expect(onlyJson(res.stdout)).toEqual({ error: { code, message: expect.any(String) } });
    expect(await owner.query('SELECT count(*)::int AS n FROM recordings WHERE company_id = $1', [company.id])).toEqual([before]);
  });
});
