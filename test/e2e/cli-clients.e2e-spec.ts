import { DataSource } from 'typeorm';
import { cli, onlyJson } from '../support/cli';
import { ownerDataSource } from '../support/test-app';

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
