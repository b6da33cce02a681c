import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { DOCUMENT_FORMAT } from '../../src/recordings/recording.sql';
import { loadConfig } from '../../src/config/app-config';
import { ACTIVITY_KINDS } from '../../src/seeding/activity-simulator';
import { DemoSeeder } from '../../src/seeding/demo-seeder';
import { createCompany } from '../support/factories';
import { runCli, spawnCli } from '../support/cli';
import { ownerDataSource } from '../support/test-app';

/** Runs the real CLI in its own process, as an admin would. */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli({}, ...args);
}

/** The CLI with `env` added to the test environment. */
const cliWith = runCli;

function onlyJson(stdout: string): unknown {
  const lines = stdout.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
}

describe('admin CLI: companies', () => {
  let owner: DataSource;
  beforeAll(async () => {
    owner = await ownerDataSource();
  });
  afterAll(() => owner.destroy());

  it('company:create --json prints exactly {"id"} and creates the company with API access on', async () => {
    const res = await cli('company:create', '--name', 'Acme Comércio Ltda', '--json');
    expect(res.code).toBe(0);
    const out = onlyJson(res.stdout) as { id: string };
    expect(Object.keys(out)).toEqual(['id']);
    expect(out.id).toMatch(/^cmp_[0-9A-Za-z]{22}$/);
    const row = await owner.getRepository(Company).findOneByOrFail({ publicId: out.id });
    expect(row).toMatchObject({ name: 'Acme Comércio Ltda', apiAccess: true });
  });

  it('company:create --api-access off, then company:feature --enable and --disable', async () => {
    const { id } = onlyJson((await cli('company:create', '--name', 'Beta', '--api-access', 'off', '--json')).stdout) as { id: string };
    expect((await owner.getRepository(Company).findOneByOrFail({ publicId: id })).apiAccess).toBe(false);

    const enabled = await cli('company:feature', '--company', id, '--feature', 'API_ACCESS', '--enable', '--json');
    expect(enabled.code).toBe(0);
    expect(onlyJson(enabled.stdout)).toEqual({ id, features: { API_ACCESS: true } });

    const disabled = await cli('company:feature', '--company', id, '--feature', 'API_ACCESS', '--disable', '--json');
    expect(onlyJson(disabled.stdout)).toEqual({ id, features: { API_ACCESS: false } });
    expect((await owner.getRepository(Company).findOneByOrFail({ publicId: id })).apiAccess).toBe(false);
  });

  it.each([
    [['company:create', '--json'], 'INVALID_ARGUMENTS'],
    [['company:create', '--name', 'x', '--api-access', 'maybe', '--json'], 'INVALID_ARGUMENTS'],
    [['company:create', '--name', 'x', '--bogus', '--json'], 'INVALID_ARGUMENTS'],
    [['company:feature', '--company', 'cmp_000000000000000000000a', '--feature', 'API_ACCESS', '--enable', '--json'], 'COMPANY_NOT_FOUND'],
    [['company:feature', '--company', 'cmp_000000000000000000000a', '--feature', 'TELEPORT', '--enable', '--json'], 'INVALID_ARGUMENTS'],
    [['company:feature', '--company', 'cmp_000000000000000000000a', '--feature', 'API_ACCESS', '--json'], 'INVALID_ARGUMENTS'],
    [['no:such-command', '--json'], 'INVALID_ARGUMENTS'],
  ])('%j fails with {"error": {"code": %s}} and a non-zero exit', async (args, code) => {
    const res = await cli(...args);
    expect(res.code).not.toBe(0);
    expect(onlyJson(res.stdout)).toEqual({ error: { code, message: expect.any(String) } });
  });

  it('refuses invalid configuration with INVALID_CONFIGURATION, naming the variable, before touching anything', async () => {
    const json = await cliWith({ RATE_LIMIT_CLIENT: '600 per minute' }, 'company:create', '--name', 'Nunca', '--json');
    expect(json.code).not.toBe(0);
    expect(onlyJson(json.stdout)).toEqual({
      error: { code: 'INVALID_CONFIGURATION', message: expect.stringMatching(/^Invalid configuration: RATE_LIMIT_CLIENT /) },
    });
    const text = await cliWith({ TOKEN_TTL_SECONDS: '-1' }, 'company:create', '--name', 'Nunca');
    expect(text.code).not.toBe(0);
    expect(text.stderr).toMatch(/^error: Invalid configuration: TOKEN_TTL_SECONDS .*\(INVALID_CONFIGURATION\)$/m);
    expect(await owner.getRepository(Company).countBy({ name: 'Nunca' })).toBe(0);
  });

  it('without --json prints readable text, and errors on stderr', async () => {
    const ok = await cli('company:create', '--name', 'Gama');
    expect(ok.stdout).toMatch(/^created company cmp_\w+ \(Gama\)/);
    const bad = await cli('company:create');
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/--name is required/);
  });
});

describe('admin CLI: clients', () => {
  let owner: DataSource;
  let companyId: string;

  beforeAll(async () => {
    owner = await ownerDataSource();
    companyId = (onlyJson((await cli('company:create', '--name', 'Clientes Ltda', '--json')).stdout) as { id: string }).id;
  });
  afterAll(() => owner.destroy());

  it('client:create prints the secret once, client:list never shows it, and the table holds only its hash', async () => {
    const res = await cli(
      'client:create',
      '--company',
      companyId,
      '--name',
      'Warehouse',
      '--scopes',
      'calls.read meetings.read',
      '--cidrs',
      '203.0.113.7/24 2001:DB8::/32',
      '--json',
    );
    expect(res.code).toBe(0);
    const created = onlyJson(res.stdout) as { client_id: string; client_secret: string; scopes: string[] };
    expect(Object.keys(created)).toEqual(['client_id', 'client_secret', 'scopes']);
    expect(created.client_id).toMatch(/^cli_[0-9A-Za-z]{22}$/);
    expect(created.client_secret).toMatch(/^secret_[0-9A-Za-z]{43}$/);
    expect(created.scopes).toEqual(['meetings.read', 'calls.read']);
    expect(res.stderr).not.toContain(created.client_secret);

    const listed = await cli('client:list', '--company', companyId, '--json');
    expect(listed.stdout).not.toContain(created.client_secret);
    const { data } = onlyJson(listed.stdout) as { data: Array<Record<string, unknown>> };
    expect(data).toEqual([
      {
        client_id: created.client_id,
        company_id: companyId,
        name: 'Warehouse',
        status: 'active',
        scopes: ['meetings.read', 'calls.read'],
        cidrs: ['203.0.113.0/24', '2001:db8::/32'],
        credential_version: 1,
        created_at: expect.any(String),
        secrets: [{ created_at: expect.any(String), expires_at: null }],
      },
    ]);
    const dump = JSON.stringify(
      await owner.query('SELECT s.* FROM client_secrets s JOIN api_clients c ON c.id = s.client_id WHERE c.public_id = $1', [
        created.client_id,
      ]),
    );
    expect(dump).not.toContain(created.client_secret);
  });

  it('client:rotate-secret, then ROTATION_IN_PROGRESS while two secrets are valid', async () => {
    const { client_id } = onlyJson(
      (await cli('client:create', '--company', companyId, '--name', 'Rotating', '--scopes', 'chat.read', '--json')).stdout,
    ) as { client_id: string };
    const rotated = await cli('client:rotate-secret', '--client', client_id, '--json');
    expect(rotated.code).toBe(0);
    const out = onlyJson(rotated.stdout) as { client_id: string; client_secret: string; previous_secret_expires_at: string };
    expect(Object.keys(out)).toEqual(['client_id', 'client_secret', 'previous_secret_expires_at']);
    expect(out.client_id).toBe(client_id);
    const graceMs = Date.parse(out.previous_secret_expires_at) - Date.now();
    expect(graceMs).toBeGreaterThan(604_800_000 - 120_000);
    expect(graceMs).toBeLessThanOrEqual(604_800_000);

    const again = await cli('client:rotate-secret', '--client', client_id, '--json');
    expect(again.code).not.toBe(0);
    expect(onlyJson(again.stdout)).toEqual({ error: { code: 'ROTATION_IN_PROGRESS', message: expect.any(String) } });
  });

  it('client:expire-previous-secret ends the grace at once and is written to the audit trail', async () => {
    const { client_id } = onlyJson(
      (await cli('client:create', '--company', companyId, '--name', 'Leaked', '--scopes', 'chat.read', '--json')).stdout,
    ) as { client_id: string };
    expect((await cli('client:rotate-secret', '--client', client_id, '--json')).code).toBe(0);
    const ended = await cli('client:expire-previous-secret', '--client', client_id, '--json');
    expect(ended.code).toBe(0);
    expect(onlyJson(ended.stdout)).toEqual({ client_id, expired_secrets: 1 });
    const secrets = await owner.query(
      `SELECT count(*)::int AS valid FROM client_secrets s JOIN api_clients c ON c.id = s.client_id
       WHERE c.public_id = $1 AND (s.expires_at IS NULL OR s.expires_at > now())`,
      [client_id],
    );
    expect(secrets[0].valid).toBe(1);
    const audit = await owner.query(`SELECT method, route, company, status FROM audit_events WHERE client = $1`, [client_id]);
    expect(audit).toEqual([{ method: 'CLI', route: 'client:expire-previous-secret', company: companyId, status: 200 }]);
  });

  it('client:disable, client:enable, client:revoke print {client_id, status}; revocation is final', async () => {
    const { client_id } = onlyJson(
      (await cli('client:create', '--company', companyId, '--name', 'Lifecycle', '--scopes', 'emails.read', '--json')).stdout,
    ) as { client_id: string };
    expect(onlyJson((await cli('client:disable', '--client', client_id, '--json')).stdout)).toEqual({ client_id, status: 'disabled' });
    expect(onlyJson((await cli('client:enable', '--client', client_id, '--json')).stdout)).toEqual({ client_id, status: 'active' });
    expect(onlyJson((await cli('client:revoke', '--client', client_id, '--json')).stdout)).toEqual({ client_id, status: 'revoked' });
    const reenable = await cli('client:enable', '--client', client_id, '--json');
    expect(reenable.code).not.toBe(0);
    expect(onlyJson(reenable.stdout)).toEqual({ error: { code: 'CLIENT_REVOKED', message: expect.any(String) } });
  });

  it('client:set-cidrs replaces the allow-list, and an empty string clears it', async () => {
    const { client_id } = onlyJson(
      (await cli('client:create', '--company', companyId, '--name', 'Cidrs', '--scopes', 'calls.read', '--json')).stdout,
    ) as { client_id: string };
    expect(
      onlyJson((await cli('client:set-cidrs', '--client', client_id, '--cidrs', '10.1.2.3/8 ::ffff:198.51.100.0/120', '--json')).stdout),
    ).toEqual({
      client_id,
      cidrs: ['10.0.0.0/8', '::ffff:198.51.100.0/120'],
    });
    expect(onlyJson((await cli('client:set-cidrs', '--client', client_id, '--cidrs', '', '--json')).stdout)).toEqual({
      client_id,
      cidrs: [],
    });
  });

  it.each([
    [['client:create', '--company', 'cmp_000000000000000000000a', '--name', 'x', '--scopes', 'calls.read'], 'COMPANY_NOT_FOUND'],
    [['client:create', '--name', 'x', '--scopes', 'calls.read'], 'INVALID_ARGUMENTS'],
    [['client:create', '--company', 'COMPANY', '--name', 'x', '--scopes', 'calls.write'], 'INVALID_ARGUMENTS'],
    [['client:create', '--company', 'COMPANY', '--name', 'x', '--scopes', 'calls.read', '--cidrs', '10.0.0.0/33'], 'INVALID_ARGUMENTS'],
    [['client:rotate-secret', '--client', 'cli_000000000000000000000a'], 'CLIENT_NOT_FOUND'],
    [['client:revoke'], 'INVALID_ARGUMENTS'],
    [['client:set-cidrs', '--client', 'cli_000000000000000000000a'], 'INVALID_ARGUMENTS'],
  ])('%j fails with its code', async (args, code) => {
    const res = await cli(...args.map((a) => (a === 'COMPANY' ? companyId : a)), '--json');
    expect(res.code).not.toBe(0);
    expect(onlyJson(res.stdout)).toEqual({ error: { code, message: expect.any(String) } });
  });

  it('without --json, client:create shows the secret with a warning to store it', async () => {
    const res = await cli('client:create', '--company', companyId, '--name', 'Text', '--scopes', 'calls.read');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/client_id: +cli_\w{22}\nclient_secret: +secret_\w{43}\n/);
    expect(res.stdout).toMatch(/shown only now/);
  });
});

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
