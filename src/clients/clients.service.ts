import { Injectable } from '@nestjs/common';
import { ALL_SCOPES, Scope } from '../contract/scopes';
import { AdminError } from '../common/errors/admin-error';
import { parseId } from '../common/ids/public-id';
import { CompaniesService } from '../companies/companies.service';
import { AppConfig } from '../config/app-config';
import { actForCompany } from '../database/tenant-repository';
import { AddressAllowList, InvalidCidrError } from './address-allow-list';
import { ApiClient, ClientStatus } from './api-client.entity';
import { generateClientSecret, hashClientSecret } from './client-secret';
import { ClientsRepository } from './clients.repository';

/** What `client:list` shows of a client: everything but a secret. */
export interface ClientSummary {
  client_id: string;
  company_id: string;
  name: string;
  status: ClientStatus;
  scopes: string[];
  cidrs: string[];
  credential_version: number;
  created_at: string;
  secrets: Array<{ created_at: string; expires_at: string | null }>;
}

/**
 * Admin operations on API clients (the CLI's `client:*` commands). Each acts for the one company
 * it names or whose client it names (actForCompany), and the repository reads that company from the
 * context.
 */
@Injectable()
export class ClientsService {
  constructor(
    private readonly clients: ClientsRepository,
    private readonly companies: CompaniesService,
    private readonly config: AppConfig,
  ) {}

  async create(input: {
    company: string;
    name: string;
    scopes: Scope[];
    cidrs?: string[];
  }): Promise<{ client_id: string; client_secret: string; scopes: string[] }> {
    const company = await this.companies.get(input.company);
    const name = input.name.trim();
    if (name.length < 1 || name.length > 200) throw new AdminError('INVALID_ARGUMENTS', '--name must be 1 to 200 characters');
    const scopes = ALL_SCOPES.filter((scope) => input.scopes.includes(scope));
    if (scopes.length === 0) throw new AdminError('INVALID_ARGUMENTS', `--scopes needs at least one of ${ALL_SCOPES.join(' ')}`);
    const cidrs = input.cidrs ?? [];
    const secret = generateClientSecret();
    const client = await actForCompany(company.id, () =>
      this.clients.create({ name, scopes, cidrs, secretHash: hashClientSecret(secret) }),
    );
    return { client_id: client.publicId, client_secret: secret, scopes: client.scopes };
  }

  async list(companyPublicId: string): Promise<ClientSummary[]> {
    const company = await this.companies.get(companyPublicId);
    const rows = await actForCompany(company.id, () => this.clients.list());
    return rows.map(({ client, secrets }) => ({
      client_id: client.publicId,
      company_id: company.publicId,
      name: client.name,
      status: client.status,
      scopes: client.scopes,
      cidrs: client.cidrs,
      credential_version: client.credentialVersion,
      created_at: client.createdAt.toISOString(),
      secrets: secrets.map((s) => ({ created_at: s.createdAt.toISOString(), expires_at: s.expiresAt?.toISOString() ?? null })),
    }));
  }

  /** A new secret; the current one keeps working for SECRET_GRACE_SECONDS. */
  async rotateSecret(clientPublicId: string): Promise<{ client_id: string; client_secret: string; previous_secret_expires_at: string }> {
    const client = await this.get(clientPublicId);
    if (client.status === 'revoked') throw new AdminError('CLIENT_REVOKED', `Client ${client.publicId} is revoked; create a new client.`);
    const secret = generateClientSecret();
    const outcome = await actForCompany(client.companyId, () =>
      this.clients.rotateSecret(client, hashClientSecret(secret), this.config.secretGraceSeconds),
    );
    if (!outcome.rotated) {
      const until = outcome.validUntil ? ` until ${outcome.validUntil.toISOString()}` : '';
      throw new AdminError(
        'ROTATION_IN_PROGRESS',
        `Client ${client.publicId} already has two valid secrets; the previous one stays valid${until}.`,
      );
    }
    return { client_id: client.publicId, client_secret: secret, previous_secret_expires_at: outcome.previousExpiresAt.toISOString() };
  }

  /** Ends the previous secret's grace at once (a leaked secret after a rotation): only the current one works then. */
  async expirePreviousSecret(clientPublicId: string): Promise<{ client_id: string; company_id: string; expired_secrets: number }> {
    const client = await this.get(clientPublicId);
    if (client.status === 'revoked') throw new AdminError('CLIENT_REVOKED', `Client ${client.publicId} is revoked; create a new client.`);
    const { expired, companyPublicId } = await actForCompany(client.companyId, () => this.clients.expirePreviousSecrets(client));
    return { client_id: client.publicId, company_id: companyPublicId, expired_secrets: expired };
  }

  /**
   * `revoked` is final. Disabling or revoking also invalidates every issued token (the
   * credential version changes), so enabling again does not bring old tokens back.
   */
  async setStatus(clientPublicId: string, status: ClientStatus): Promise<{ client_id: string; status: ClientStatus }> {
    const client = await this.get(clientPublicId);
    if (client.status === 'revoked' && status !== 'revoked') {
      throw new AdminError('CLIENT_REVOKED', `Client ${client.publicId} is revoked; revocation cannot be undone.`);
    }
    if (client.status === status) return { client_id: client.publicId, status };
    const updated = await actForCompany(client.companyId, () => this.clients.setStatus(client, status, status !== 'active'));
    return { client_id: updated.publicId, status: updated.status };
  }

  /** Replaces the address allow-list; an empty list clears it. */
  async setCidrs(clientPublicId: string, cidrs: string[]): Promise<{ client_id: string; cidrs: string[] }> {
    const client = await this.get(clientPublicId);
    const updated = await actForCompany(client.companyId, () => this.clients.setCidrs(client, cidrs));
    return { client_id: updated.publicId, cidrs: updated.cidrs };
  }

  private async get(publicId: string): Promise<ApiClient> {
    const id = parseId('client', publicId);
    const client = id ? await this.clients.findByPublicId(id) : null;
    if (!client) throw new AdminError('CLIENT_NOT_FOUND', `No client with id ${JSON.stringify(publicId.slice(0, 60))}.`);
    return client;
  }
}

/** Space- or comma-separated scope names, in the canonical order of the scope table. */
export function parseScopeList(text: string): Scope[] {
  const names = text.split(/[\s,]+/).filter(Boolean);
  const unknown = names.filter((n) => !(ALL_SCOPES as string[]).includes(n));
  if (unknown.length > 0)
    throw new AdminError(
      'INVALID_ARGUMENTS',
      `unknown scope ${JSON.stringify(unknown[0].slice(0, 60))}; scopes are ${ALL_SCOPES.join(' ')}`,
    );
  if (names.length === 0) throw new AdminError('INVALID_ARGUMENTS', `--scopes needs at least one of ${ALL_SCOPES.join(' ')}`);
  return ALL_SCOPES.filter((s) => names.includes(s));
}

/** Space-separated CIDRs in network form (an empty text: no allow-list). */
export function parseCidrList(text: string): string[] {
  try {
    return AddressAllowList.parse(text).cidrs;
  } catch (error) {
    if (error instanceof InvalidCidrError) throw new AdminError('INVALID_ARGUMENTS', error.message);
    throw error;
  }
}
