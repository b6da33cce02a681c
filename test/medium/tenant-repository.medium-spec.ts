import { ClsServiceManager } from 'nestjs-cls';
import { DataSource } from 'typeorm';
import { ApiClient } from '../../src/clients/api-client.entity';
import { Company } from '../../src/companies/company.entity';
import { RequestStore } from '../../src/common/http/request-context';
import { mintId } from '../../src/common/ids/public-id';
import { actForCompany, TenantRepository } from '../../src/database/tenant-repository';
import { createCompany } from '../support/factories';
import { ownerDataSource } from '../support/test-app';

/**
 * The promise of TenantRepository, against the real database as the schema owner (whom row-level
 * security does not narrow to a company): the company comes from the context, so a caller can
 * neither forget it nor reach another company's rows.
 */
describe('TenantRepository', () => {
  let owner: DataSource;
  let clients: TenantRepository<ApiClient>;
  let a: Company;
  let b: Company;
  let bClient: ApiClient;

  const newClient = (name: string) => ({
    publicId: mintId('client'),
    name,
    status: 'active' as const,
    scopes: ['meetings.read'],
    cidrs: [],
  });
  const unchanged = async (client: ApiClient) =>
    expect(await owner.getRepository(ApiClient).findOneByOrFail({ id: client.id })).toMatchObject({
      companyId: b.id,
      name: client.name,
      status: 'active',
    });

  beforeAll(async () => {
    owner = await ownerDataSource();
    clients = new TenantRepository(owner, ApiClient);
    [a, b] = await Promise.all([createCompany(owner), createCompany(owner)]);
    bClient = await actForCompany(b.id, () => clients.insert(newClient('B client')));
  });
  afterAll(() => owner.destroy());

  describe('without a company in the context', () => {
    it.each([
      ['find', () => clients.find()],
      ['findOne', () => clients.findOne({ id: bClient.id })],
      ['insert', () => clients.insert(newClient('nobody'))],
      ['update', () => clients.update({ id: bClient.id }, { name: 'renamed' })],
      ['delete', () => clients.delete({ id: bClient.id })],
    ])('refuses %s before any statement runs', async (_name, call) => {
      await expect(call()).rejects.toThrow(/no company in this context/);
      await ClsServiceManager.getClsService().run(() => expect(call()).rejects.toThrow(/no company in this context/));
      await unchanged(bClient);
    });
  });

  describe("acting for company A, aimed at company B's row", () => {
    const asA = <T>(work: () => Promise<T>) => actForCompany(a.id, work);

    it('finds nothing of B, by id or unfiltered', async () => {
      const mine = await asA(() => clients.insert(newClient('A client')));
      expect(await asA(() => clients.findOne({ id: bClient.id }))).toBeNull();
      expect((await asA(() => clients.find())).map((c) => c.id)).toEqual([mine.id]);
      expect(
        await asA(() => owner.transaction((m) => clients.in(m).find({ where: { id: bClient.id }, lock: { mode: 'pessimistic_write' } }))),
      ).toEqual([]);
    });

    it('updates and deletes none of B', async () => {
      expect(await asA(() => clients.update({ id: bClient.id }, { name: 'taken over', status: 'revoked' }))).toBe(0);
      expect(await asA(() => clients.delete({ id: bClient.id }))).toBe(0);
      await unchanged(bClient);
    });

    it('inserts into A even when the values name B, by refusing a company from the caller', async () => {
      const forged = { ...newClient('forged'), companyId: b.id };
      await expect(asA(() => clients.insert(forged))).rejects.toThrow(/comes from the context/);
      await expect(asA(() => clients.find({ where: { companyId: b.id } as object }))).rejects.toThrow(/comes from the context/);
      await expect(asA(() => clients.update({ id: bClient.id }, { companyId: a.id } as object))).rejects.toThrow(/comes from the context/);
      expect(await owner.getRepository(ApiClient).countBy({ name: 'forged' })).toBe(0);
    });

    it('refuses relations and joins, which the company condition would not reach', async () => {
      const joined = { relations: { secrets: true } } as object;
      await expect(asA(() => clients.find(joined))).rejects.toThrow(/through their own repository/);
      await expect(asA(() => clients.find({ join: { alias: 'c' } } as object))).rejects.toThrow(/through their own repository/);
    });

    it('refuses to act for B inside an operation acting for A', async () => {
      await expect(asA(() => actForCompany(b.id, () => clients.find()))).rejects.toThrow(/already acting for company/);
    });
  });

  it("takes an API request's company from its principal", async () => {
    const cls = ClsServiceManager.getClsService<RequestStore>();
    const principal = { companyId: b.id, companyPublicId: b.publicId, companyName: b.name, clientId: 'cli_x', clientName: 'x', scopes: [] };
    const found = await cls.run(() => {
      cls.set('principal', principal);
      return clients.find();
    });
    expect(found.map((c) => c.id)).toEqual([bClient.id]);
    await cls.run(() => {
      cls.set('principal', principal);
      return expect(actForCompany(a.id, () => clients.find())).rejects.toThrow(/already acting for company/);
    });
  });
});
