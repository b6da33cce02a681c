import request from 'supertest';
import { DataSource } from 'typeorm';
import { Scope } from '../../src/contract/scopes';
import { ClientsRepository } from '../../src/clients/clients.repository';
import { ClientsService, parseCidrList } from '../../src/clients/clients.service';
import { CompaniesRepository } from '../../src/companies/companies.repository';
import { CompaniesService } from '../../src/companies/companies.service';
import { Company } from '../../src/companies/company.entity';
import { loadConfig } from '../../src/config/app-config';

export interface TestClient {
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

/** The real admin service (what the CLI runs) over a schema-owner connection. */
export function clientsAdmin(owner: DataSource, env: NodeJS.ProcessEnv = {}): ClientsService {
  const config = loadConfig({ NODE_ENV: 'test', ...env });
  return new ClientsService(new ClientsRepository(owner), new CompaniesService(new CompaniesRepository(owner)), config);
}

/** A new API client of `company`, created through the admin service. */
export async function createClient(
  owner: DataSource,
  company: Company,
  options: { scopes?: Scope[]; cidrs?: string; name?: string } = {},
): Promise<TestClient> {
  const created = await clientsAdmin(owner).create({
    company: company.publicId,
    name: options.name ?? 'Test client',
    scopes: options.scopes ?? ['meetings.read', 'calls.read'],
    cidrs: options.cidrs === undefined ? undefined : parseCidrList(options.cidrs),
  });
  return { clientId: created.client_id, clientSecret: created.client_secret, scopes: created.scopes };
}

/** `POST /oauth/token` with body credentials. */
export function requestToken(
  http: ReturnType<typeof request>,
  client: Pick<TestClient, 'clientId' | 'clientSecret'>,
  fields: Record<string, string> = {},
) {
  return http
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret, ...fields });
}

/** An access token for `client`; fails the test when issuance fails. */
export async function tokenFor(http: ReturnType<typeof request>, client: TestClient, fields: Record<string, string> = {}): Promise<string> {
  const res = await requestToken(http, client, fields);
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}

/** `Basic` credentials as RFC 6749 §2.3.1 builds them: form-encode id and secret, then base64. */
export function basicAuth(clientId: string, clientSecret: string): string {
  const form = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${form(clientId)}:${form(clientSecret)}`).toString('base64')}`;
}
