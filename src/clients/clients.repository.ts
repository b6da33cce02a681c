import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, IsNull, Raw } from 'typeorm';
import { mintId } from '../common/ids/public-id';
import { Company } from '../companies/company.entity';
import { TenantRepository } from '../database/tenant-repository';
import { ApiClient, ClientStatus } from './api-client.entity';
import { ClientSecret } from './client-secret.entity';

/** A new client of the company the context acts for (actForCompany). */
export interface NewClient {
  name: string;
  scopes: string[];
  cidrs: string[];
  secretHash: Buffer;
}

/** A client with the secrets valid now (metadata only, never a hash). */
export interface ClientWithSecrets {
  client: ApiClient;
  secrets: Array<{ createdAt: Date; expiresAt: Date | null }>;
}

export type RotationOutcome = { rotated: true; previousExpiresAt: Date } | { rotated: false; validUntil: Date | null };

/** Still valid at the database's clock: the current secret (no expiry), or one whose grace has not ended. */
const validNow = Raw<Date | null>((at) => `(${at} IS NULL OR ${at} > now())`);

/**
 * Credential administration; runs as the schema owner (CLI), never on an API request. Every
 * statement but the lookup by public id (which is how an admin names a client, and tells its
 * company) goes through TenantRepository: it acts for the company of the context, so an admin
 * operation cannot touch another company's clients. Validity is judged by the database clock, the
 * same clock the token endpoint uses.
 */
@Injectable()
export class ClientsRepository {
  private readonly clients: TenantRepository<ApiClient>;
  private readonly secrets: TenantRepository<ClientSecret>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.clients = new TenantRepository(dataSource, ApiClient);
    this.secrets = new TenantRepository(dataSource, ClientSecret);
  }

  create(input: NewClient): Promise<ApiClient> {
    return this.dataSource.transaction(async (m) => {
      const client = await this.clients.in(m).insert({
        publicId: mintId('client'),
        name: input.name,
        status: 'active',
        scopes: input.scopes,
        cidrs: input.cidrs,
        credentialVersion: 1,
      });
      await this.secrets.in(m).insert({ clientId: client.id, secretHash: input.secretHash, expiresAt: null });
      return client;
    });
  }

  /** The admin's lookup: a client id names one client of whichever company. */
  findByPublicId(publicId: string): Promise<ApiClient | null> {
    return this.dataSource.getRepository(ApiClient).findOneBy({ publicId });
  }

  /** The company's clients in creation order (index api_clients_company_created_idx), with their valid secrets. */
  async list(): Promise<ClientWithSecrets[]> {
    const clients = await this.clients.find({ order: { createdAt: 'ASC', id: 'ASC' } });
    if (clients.length === 0) return [];
    const secrets = await this.secrets.find({
      where: { clientId: In(clients.map((c) => c.id)), expiresAt: validNow },
      order: { createdAt: 'DESC' },
    });
    return clients.map((client) => ({
      client,
      secrets: secrets.filter((s) => s.clientId === client.id).map((s) => ({ createdAt: s.createdAt, expiresAt: s.expiresAt })),
    }));
  }

  /**
   * Makes `secretHash` the current secret and gives the current one `graceSeconds` more,
   * unless two secrets are valid already. The client row is locked so that two concurrent
   * rotations cannot both see one valid secret.
   */
  rotateSecret(client: ApiClient, secretHash: Buffer, graceSeconds: number): Promise<RotationOutcome> {
    return this.dataSource.transaction(async (m) => {
      const [clients, secrets] = [this.clients.in(m), this.secrets.in(m)];
      await clients.find({ where: { id: client.id }, lock: { mode: 'pessimistic_write' } });
      const valid = await secrets.find({ where: { clientId: client.id, expiresAt: validNow } });
      if (valid.length >= 2) {
        const previous = valid.find((s) => s.expiresAt !== null);
        return { rotated: false, validUntil: previous?.expiresAt ?? null };
      }
      await secrets.delete({ clientId: client.id, expiresAt: Raw((at) => `${at} <= now()`) });
      await secrets.update(
        { clientId: client.id, expiresAt: IsNull() },
        { expiresAt: () => 'now() + make_interval(secs => :grace)' },
        { grace: graceSeconds },
      );
      // now() is the transaction's start, so the expiry just set reads back as set.
      const previous = await secrets.findOne({ clientId: client.id, expiresAt: Raw((at) => `${at} IS NOT NULL`) });
      await secrets.insert({ clientId: client.id, secretHash, expiresAt: null });
      return { rotated: true, previousExpiresAt: previous!.expiresAt! };
    });
  }

  /**
   * Ends the grace of the client's previous secret now: every secret that still works but is not
   * the current one (which never expires by itself) expires this instant. The token endpoint reads
   * secrets on every request, so this holds at once on every instance. How many were ended, and the
   * client's company.
   */
  async expirePreviousSecrets(client: ApiClient): Promise<{ expired: number; companyPublicId: string }> {
    return this.dataSource.transaction(async (m) => {
      const expired = await this.secrets.in(m).update(
        { clientId: client.id, expiresAt: Raw((at) => `${at} IS NOT NULL AND ${at} > now()`) },
        { expiresAt: () => 'now()' },
      );
      const company = await m.getRepository(Company).findOneByOrFail({ id: this.clients.companyId });
      return { expired, companyPublicId: company.publicId };
    });
  }

  /** Sets the status; `invalidateTokens` bumps the credential version, killing issued tokens. */
  async setStatus(client: ApiClient, status: ClientStatus, invalidateTokens: boolean): Promise<ApiClient> {
    await this.clients.update(
      { id: client.id },
      { status, ...(invalidateTokens ? { credentialVersion: () => 'credential_version + 1' } : {}) },
    );
    return this.reread(client);
  }

  async setCidrs(client: ApiClient, cidrs: string[]): Promise<ApiClient> {
    await this.clients.update({ id: client.id }, { cidrs });
    return this.reread(client);
  }

  private async reread(client: ApiClient): Promise<ApiClient> {
    const row = await this.clients.findOne({ id: client.id });
    if (!row) throw new Error(`client ${client.publicId} is not a client of the company this context acts for`);
    return row;
  }
}
