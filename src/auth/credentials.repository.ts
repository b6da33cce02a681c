import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ClientStatus } from '../clients/api-client.entity';
import { PoolGate, TOKEN_LANE } from '../database/pool-gate';
import { TenantTransaction } from '../database/tenant-transaction';

/** A client's state as every request checks it. */
export interface ClientState {
  clientId: string;
  clientName: string;
  /** Internal id: only for the tenant transaction. */
  companyId: string;
  companyPublicId: string;
  companyName: string;
  apiAccess: boolean;
  status: ClientStatus;
  scopes: string[];
  cidrs: string[];
  version: number;
  /** Fingerprints of the client's secrets valid now: a token stands only while the secret presented for it is one of them. */
  secretIds: string[];
}

export interface ClientCredentials extends ClientState {
  /** SHA-256 of each secret valid now (at most two). */
  secretHashes: Buffer[];
}

interface StateRow {
  client_name: string;
  company_id: string;
  company_public_id: string;
  company_name: string;
  api_access: boolean;
  status: ClientStatus;
  scopes: string[];
  cidrs: string[];
  credential_version: number;
  secret_ids?: string[];
}

/**
 * The API's only view of credentials: one client by its public id, through the SECURITY
 * DEFINER functions of the credentials migration (the API role has no privilege on the
 * tables). One indexed lookup per call, on `api_clients_public_id_key`.
 */
@Injectable()
export class CredentialsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tenant: TenantTransaction,
    private readonly gate: PoolGate,
  ) {}

  async stateOf(clientId: string): Promise<ClientState | null> {
    const [row]: StateRow[] = await this.dataSource.query(
      'SELECT s.*, app_client_token_secrets($1) AS secret_ids FROM app_client_state($1) s',
      [clientId],
    );
    return row ? toState(clientId, row) : null;
  }

  /**
   * The client's state, read in the round trip that opens the request's tenant transaction for
   * its company (TenantTransaction.openWith): the caller admits the request or abandons it. The
   * connection is taken in the turn of `company`, the company the verified token names.
   */
  async stateOpeningTenant(clientId: string, company: string, signal?: AbortSignal): Promise<ClientState | null> {
    const row = await this.tenant.openWith<StateRow>(
      (literal) => `SELECT s.*, app_client_token_secrets(${literal(clientId)}) AS secret_ids FROM app_client_state(${literal(clientId)}) s`,
      company,
      signal,
    );
    return row ? toState(clientId, row) : null;
  }

  /** For the token endpoint: read in the token lane's turn at the pool's fair gate (pool-gate.ts). */
  async credentialsOf(clientId: string): Promise<ClientCredentials | null> {
    const [row]: Array<StateRow & { secret_hashes: Buffer[] }> = await this.gate.run(TOKEN_LANE, () =>
      this.dataSource.query('SELECT * FROM app_client_credentials($1)', [clientId]),
    );
    return row ? { ...toState(clientId, row), secretHashes: row.secret_hashes } : null;
  }
}

function toState(clientId: string, row: StateRow): ClientState {
  return {
    clientId,
    clientName: row.client_name,
    companyId: row.company_id,
    companyPublicId: row.company_public_id,
    companyName: row.company_name,
    apiAccess: row.api_access,
    status: row.status,
    scopes: row.scopes,
    cidrs: row.cidrs,
    version: row.credential_version,
    secretIds: row.secret_ids ?? [],
  };
}
