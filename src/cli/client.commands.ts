import { Injectable } from '@nestjs/common';
import { Command, Option } from 'nest-commander';
import { ClientStatus } from '../clients/api-client.entity';
import { AdminAudit } from '../audit/admin-audit';
import { ClientsService, parseCidrList, parseScopeList } from '../clients/clients.service';
import { Scope } from '../contract/scopes';
import { AdminError } from '../common/errors/admin-error';
import { AdminCommand, CommonOptions } from './admin-command';
import { required, textOption } from './option-parsers';

interface ClientOptions extends CommonOptions {
  client?: string;
}

interface CompanyOptions extends CommonOptions {
  company?: string;
}

interface ClientCreateOptions extends CommonOptions {
  company?: string;
  name?: string;
  scopes?: Scope[];
  cidrs?: string[];
}

interface ClientSetCidrsOptions extends ClientOptions {
  cidrs?: string[];
}

/** Base of the commands that act on one client (`--client cli_…`); @Injectable so subclasses inherit its constructor's types. */
@Injectable()
abstract class ClientCommand<O extends ClientOptions = ClientOptions> extends AdminCommand<O> {
  constructor(protected readonly clients: ClientsService) {
    super();
  }

  @Option({ flags: '--client <id>', description: 'client id (cli_…)' })
  parseClient(value: string): string {
    return textOption('client', value);
  }
}

@Command({ name: 'client:create', description: 'create an API client; prints its secret once' })
export class ClientCreateCommand extends AdminCommand<ClientCreateOptions> {
  constructor(private readonly clients: ClientsService) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'company id (cmp_…)' })
  parseCompany(value: string): string {
    return textOption('company', value);
  }

  @Option({ flags: '--name <name>', description: 'client name (1 to 200 characters)' })
  parseName(value: string): string {
    return textOption('name', value);
  }

  @Option({ flags: '--scopes <scopes>', description: 'space-separated scopes, e.g. "meetings.read calls.read"' })
  parseScopes(value: string): Scope[] {
    return parseScopeList(value);
  }

  @Option({ flags: '--cidrs <cidrs>', description: 'optional address allow-list, e.g. "203.0.113.0/24 2001:db8::/32"' })
  parseCidrs(value: string): string[] {
    return parseCidrList(value);
  }

  protected async execute(_params: string[], options: ClientCreateOptions): Promise<void> {
    const created = await this.clients.create({
      company: required(options.company, 'company'),
      name: required(options.name, 'name'),
      scopes: required(options.scopes, 'scopes'),
      cidrs: options.cidrs,
    });
    await this.replayedOrWarn();
    this.output.result(
      created,
      [
        `client_id:     ${created.client_id}`,
        `client_secret: ${created.client_secret}`,
        `scopes:        ${created.scopes.join(' ')}`,
        'The secret is shown only now; store it in your secret manager.',
      ].join('\n'),
    );
  }
}

@Command({ name: 'client:list', description: "list a company's API clients (never a secret)" })
export class ClientListCommand extends AdminCommand<CompanyOptions> {
  constructor(private readonly clients: ClientsService) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'company id (cmp_…)' })
  parseCompany(value: string): string {
    return textOption('company', value);
  }

  protected async execute(_params: string[], options: CompanyOptions): Promise<void> {
    const data = await this.clients.list(required(options.company, 'company'));
    const lines = data.map(
      (c) =>
        `${c.client_id}  ${c.status.padEnd(8)}  ${c.name}  [${c.scopes.join(' ')}]${c.cidrs.length ? `  cidrs: ${c.cidrs.join(' ')}` : ''}`,
    );
    this.output.result({ data }, lines.length ? lines.join('\n') : 'no clients');
  }
}

@Command({ name: 'client:rotate-secret', description: 'issue a new secret; the previous one works for SECRET_GRACE_SECONDS' })
export class ClientRotateSecretCommand extends ClientCommand {
  protected async execute(_params: string[], options: ClientOptions): Promise<void> {
    const rotated = await this.clients.rotateSecret(required(options.client, 'client'));
    await this.replayedOrWarn();
    this.output.result(
      rotated,
      [
        `client_id:     ${rotated.client_id}`,
        `client_secret: ${rotated.client_secret}`,
        `previous secret valid until ${rotated.previous_secret_expires_at}`,
      ].join('\n'),
    );
  }
}

@Command({
  name: 'client:expire-previous-secret',
  description: "end the previous secret's grace now (after a rotation, when it leaked); only the current secret works then",
})
export class ClientExpirePreviousSecretCommand extends ClientCommand {
  constructor(
    clients: ClientsService,
    private readonly audit: AdminAudit,
  ) {
    super(clients);
  }

  protected async execute(_params: string[], options: ClientOptions): Promise<void> {
    const { company_id, ...ended } = await this.clients.expirePreviousSecret(required(options.client, 'client'));
    await this.audit.record({ command: 'client:expire-previous-secret', company: company_id, client: ended.client_id });
    await this.replicas.everywhere();
    this.output.result(ended, `client_id: ${ended.client_id}\nprevious secrets ended: ${ended.expired_secrets}`);
  }
}

/** `client:revoke`, `client:disable`, `client:enable`: one command each, one status each. */
abstract class ClientStatusCommand extends ClientCommand {
  protected abstract readonly status: ClientStatus;

  protected async execute(_params: string[], options: ClientOptions): Promise<void> {
    const result = await this.clients.setStatus(required(options.client, 'client'), this.status);
    await (this.status === 'active' ? this.replayedOrWarn() : this.replicas.everywhere());
    this.output.result(result, `${result.client_id}: ${result.status}`);
  }
}

@Command({ name: 'client:revoke', description: 'revoke a client for good; its tokens stop working at once' })
export class ClientRevokeCommand extends ClientStatusCommand {
  protected readonly status = 'revoked';
}

@Command({ name: 'client:disable', description: 'disable a client; its tokens stop working at once' })
export class ClientDisableCommand extends ClientStatusCommand {
  protected readonly status = 'disabled';
}

@Command({ name: 'client:enable', description: 'enable a disabled client (tokens issued before stay invalid)' })
export class ClientEnableCommand extends ClientStatusCommand {
  protected readonly status = 'active';
}

@Command({ name: 'client:set-cidrs', description: 'replace the address allow-list ("" clears it)' })
export class ClientSetCidrsCommand extends ClientCommand<ClientSetCidrsOptions> {
  @Option({ flags: '--cidrs <cidrs>', description: 'space-separated CIDRs; an empty string clears the list' })
  parseCidrs(value: string): string[] {
    return parseCidrList(value);
  }

  protected async execute(_params: string[], options: ClientSetCidrsOptions): Promise<void> {
    if (options.cidrs === undefined) throw new AdminError('INVALID_ARGUMENTS', '--cidrs is required (an empty string clears the list)');
    const result = await this.clients.setCidrs(required(options.client, 'client'), options.cidrs);
    await this.replicas.everywhere();
    this.output.result(result, `${result.client_id}: ${result.cidrs.length ? result.cidrs.join(' ') : 'any address'}`);
  }
}

export const CLIENT_COMMANDS = [
  ClientCreateCommand,
  ClientListCommand,
  ClientRotateSecretCommand,
  ClientExpirePreviousSecretCommand,
  ClientRevokeCommand,
  ClientDisableCommand,
  ClientEnableCommand,
  ClientSetCidrsCommand,
];
