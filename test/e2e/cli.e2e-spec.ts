import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { cli, onlyJson, runCli } from '../support/cli';
import { ownerDataSource } from '../support/test-app';

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
    const json = await runCli({ RATE_LIMIT_CLIENT: '600 per minute' }, 'company:create', '--name', 'Nunca', '--json');
    expect(json.code).not.toBe(0);
    expect(onlyJson(json.stdout)).toEqual({
      error: { code: 'INVALID_CONFIGURATION', message: expect.stringMatching(/^Invalid configuration: RATE_LIMIT_CLIENT /) },
    });
    const text = await runCli({ TOKEN_TTL_SECONDS: '-1' }, 'company:create', '--name', 'Nunca');
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
