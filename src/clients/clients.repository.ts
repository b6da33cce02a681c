import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { mintId } from '../common/ids/public-id';
import { ApiClient, ClientStatus } from './api-client.entity';
import { ClientSecret } from './client-secret.entity';

export interface NewClient {
  companyId: string;
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

/**
 * Credential administration; runs as the schema owner (CLI), never on an API request.
 * Validity is judged by the database clock, the same clock the token endpoint uses.
 */
@Injectable()
export class ClientsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  create(input: NewClient): Promise<ApiClient> {
    return this.dataSource.transaction(async (m) => {
      const client = await m.save(
        m.create(ApiClient, {
          publicId: mintId('client'),
          companyId: input.companyId,
          name: input.name,
          status: 'active',
          scopes: input.scopes,
          cidrs: input.cidrs,
          credentialVersion: 1,
        }),
      );
      await m.insert(ClientSecret, { clientId: client.id, companyId: client.companyId, secretHash: input.secretHash, expiresAt: null });
      return client;
    });
  }

  findByPublicId(publicId: string): Promise<ApiClient | null> {
    return this.dataSource.getRepository(ApiClient).findOneBy({ publicId });
  }

  /** A company's clients in creation order (index api_clients_company_created_idx), with their valid secrets. */
  async listForCompany(companyId: string): Promise<ClientWithSecrets[]> {
    const clients = await this.dataSource.getRepository(ApiClient).find({ where: { companyId }, order: { createdAt: 'ASC', id: 'ASC' } });
    if (clients.length === 0) return [];
    const secrets: Array<{ client_id: string; created_at: Date; expires_at: Date | null }> = await this.dataSource.query(
      `SELECT client_id, created_at, expires_at FROM client_secrets
       WHERE client_id = ANY($1) AND (expires_at IS NULL OR expires_at > now())
       ORDER BY created_at DESC`,
      [clients.map((c) => c.id)],
    );
    return clients.map((client) => ({
      client,
      secrets: secrets.filter((s) => s.client_id === client.id).map((s) => ({ createdAt: s.created_at, expiresAt: s.expires_at })),
    }));
  }

  /**
   * Makes `secretHash` the current secret and gives the current one `graceSeconds` more,
   * unless two secrets are valid already. The client row is locked so that two concurrent
   * rotations cannot both see one valid secret.
   */
  rotateSecret(client: ApiClient, secretHash: Buffer, graceSeconds: number): Promise<RotationOutcome> {
    return this.dataSource.transaction(async (m) => {
      await m.query('SELECT 1 FROM api_clients WHERE id = $1 FOR UPDATE', [client.id]);
      const valid: Array<{ expires_at: Date | null }> = await m.query(
        'SELECT expires_at FROM client_secrets WHERE client_id = $1 AND (expires_at IS NULL OR expires_at > now())',
        [client.id],
      );
      if (valid.length >= 2) {
        const previous = valid.find((s) => s.expires_at !== null);
        return { rotated: false, validUntil: previous?.expires_at ?? null };
      }
      await m.query('DELETE FROM client_secrets WHERE client_id = $1 AND expires_at <= now()', [client.id]);
      const [[previous]]: [Array<{ expires_at: Date }>] = await m.query(
        `UPDATE client_secrets SET expires_at = now() + make_interval(secs => $2)
         WHERE client_id = $1 AND expires_at IS NULL RETURNING expires_at`,
        [client.id, graceSeconds],
      );
      await m.insert(ClientSecret, { clientId: client.id, companyId: client.companyId, secretHash, expiresAt: null });
      return { rotated: true, previousExpiresAt: previous.expires_at };
    });
  }

  /**
   * Ends the grace of the client's previous secret now: every secret that still works but is not
   * the current one (which never expires by itself) expires this instant. The token endpoint reads
   * secrets on every request, so this holds at once on every instance. How many were ended, and the
   * client's company.
   */
  async expirePreviousSecrets(client: ApiClient): Promise<{ expired: number; companyPublicId: string }> {
    const [row]: Array<{ expired: number; company: string }> = await this.dataSource.query(
      `WITH ended AS (
         UPDATE client_secrets SET expires_at = now() WHERE client_id = $1 AND expires_at IS NOT NULL AND expires_at > now() RETURNING 1
       )
       SELECT (SELECT count(*)::int FROM ended) AS expired, (SELECT public_id FROM companies WHERE id = $2) AS company`,
      [client.id, client.companyId],
    );
    return { expired: row.expired, companyPublicId: row.company };
  }

  /** Sets the status; `invalidateTokens` bumps the credential version, killing issued tokens. */
  async setStatus(client: ApiClient, status: ClientStatus, invalidateTokens: boolean): Promise<ApiClient> {
    return this.update(client, (m) =>
      m
        .createQueryBuilder()
        .update(ApiClient)
        .set({ status, ...(invalidateTokens ? { credentialVersion: () => 'credential_version + 1' } : {}) })
        .where('id = :id', { id: client.id })
        .execute(),
    );
  }

  async setCidrs(client: ApiClient, cidrs: string[]): Promise<ApiClient> {
    return this.update(client, (m) => m.update(ApiClient, { id: client.id }, { cidrs }));
  }

  private async update(client: ApiClient, change: (m: EntityManager) => Promise<unknown>): Promise<ApiClient> {
    const m = this.dataSource.manager;
    await change(m);
    return m.findOneByOrFail(ApiClient, { id: client.id });
  }
}
