import { Injectable } from '@nestjs/common';
import { Command, Option } from 'nest-commander';
import { AdminAudit } from '../audit/admin-audit';
import { CHANGE_OBJECTS, ChangeObject } from '../changes/change.vocabulary';
import { AdminError } from '../common/errors/admin-error';
import { DELIVERY_STATUSES, DeliveryStatus } from '../webhooks/webhook.vocabulary';
import { WebhookAdmin } from '../webhooks/webhook-admin';
import { AdminCommand, CommonOptions } from './admin-command';
import { choiceOption, integerOption, required, textOption } from './option-parsers';

interface EndpointOptions extends CommonOptions {
  endpoint?: string;
}

interface WebhookAddOptions extends CommonOptions {
  company?: string;
  url?: string;
  types?: ChangeObject[];
}

interface WebhookListOptions extends CommonOptions {
  company?: string;
}

interface WebhookDeliveriesOptions extends EndpointOptions {
  limit?: number;
  status?: DeliveryStatus;
}

interface WebhookReplayOptions extends EndpointOptions {
  from?: string;
}

/** `--types meeting,call`: some of the feed's object types, comma-separated. */
function typesOption(value: string): ChangeObject[] {
  const items = value.split(',').map((t) => t.trim());
  const unknown = items.find((t) => !(CHANGE_OBJECTS as readonly string[]).includes(t));
  if (unknown !== undefined || !items.length) {
    throw new AdminError('INVALID_ARGUMENTS', `--types must list some of ${CHANGE_OBJECTS.join(', ')}, separated by commas`);
  }
  return items as ChangeObject[];
}

/** Base of the commands that act on one endpoint (`--endpoint whe_…`). */
@Injectable()
abstract class EndpointCommand<O extends EndpointOptions = EndpointOptions> extends AdminCommand<O> {
  constructor(
    protected readonly webhooks: WebhookAdmin,
    protected readonly audit: AdminAudit,
  ) {
    super();
  }

  @Option({ flags: '--endpoint <id>', description: 'webhook endpoint id (whe_…)' })
  parseEndpoint(value: string): string {
    return textOption('endpoint', value);
  }
}

@Command({
  name: 'webhooks:add',
  description: "send a company's changes to a URL as signed events; prints the signing secret once",
})
export class WebhookAddCommand extends AdminCommand<WebhookAddOptions> {
  constructor(
    private readonly webhooks: WebhookAdmin,
    private readonly audit: AdminAudit,
  ) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'company id (cmp_…)' })
  parseCompany(value: string): string {
    return textOption('company', value);
  }

  @Option({ flags: '--url <url>', description: 'https URL that receives the events' })
  parseUrl(value: string): string {
    return textOption('url', value);
  }

  @Option({ flags: '--types <types>', description: `object types to send, comma-separated (default: all of ${CHANGE_OBJECTS.join(', ')})` })
  parseTypes(value: string): ChangeObject[] {
    return typesOption(value);
  }

  protected async execute(_params: string[], options: WebhookAddOptions): Promise<void> {
    const added = await this.webhooks.add({
      company: required(options.company, 'company'),
      url: required(options.url, 'url'),
      types: options.types,
    });
    await this.audit.record({ command: 'webhooks:add', company: added.company_id, resources: [added.endpoint_id] });
    this.output.result(
      added,
      [
        `endpoint_id: ${added.endpoint_id}`,
        `url:         ${added.url}`,
        `types:       ${added.types?.join(',') ?? 'all'}`,
        `secret:      ${added.secret}`,
        'The signing secret is shown only now; give it to the receiver to verify signatures.',
      ].join('\n'),
    );
  }
}

@Command({ name: 'webhooks:list', description: 'list webhook endpoints (never a secret), of one company or all' })
export class WebhookListCommand extends AdminCommand<WebhookListOptions> {
  constructor(private readonly webhooks: WebhookAdmin) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'only this company (cmp_…)' })
  parseCompany(value: string): string {
    return textOption('company', value);
  }

  protected async execute(_params: string[], options: WebhookListOptions): Promise<void> {
    const data = await this.webhooks.list(options.company);
    const lines = data.map(
      (e) =>
        `${e.endpoint_id}  ${e.company_id}  ${e.state.padEnd(7)}${e.failing_since ? ` since ${e.failing_since}` : ''}  ${e.url}  [${e.types?.join(',') ?? 'all'}]`,
    );
    this.output.result({ data }, lines.length ? lines.join('\n') : 'no webhook endpoints');
  }
}

@Command({ name: 'webhooks:remove', description: 'delete a webhook endpoint and its delivery records; nothing more is sent to it' })
export class WebhookRemoveCommand extends EndpointCommand {
  protected async execute(_params: string[], options: EndpointOptions): Promise<void> {
    const removed = await this.webhooks.remove(required(options.endpoint, 'endpoint'));
    await this.audit.record({ command: 'webhooks:remove', company: removed.company_id, resources: [removed.endpoint_id] });
    this.output.result(removed, `removed ${removed.endpoint_id}`);
  }
}

@Command({
  name: 'webhooks:rotate-secret',
  description: 'issue a new signing secret; the previous one keeps signing for WEBHOOK_SECRET_OVERLAP (24 h)',
})
export class WebhookRotateSecretCommand extends EndpointCommand {
  protected async execute(_params: string[], options: EndpointOptions): Promise<void> {
    const rotated = await this.webhooks.rotateSecret(required(options.endpoint, 'endpoint'));
    await this.audit.record({ command: 'webhooks:rotate-secret', company: rotated.company_id, resources: [rotated.endpoint_id] });
    this.output.result(
      rotated,
      [
        `endpoint_id: ${rotated.endpoint_id}`,
        `secret:      ${rotated.secret}`,
        `the previous secret signs too until ${rotated.previous_secret_expires_at}`,
      ].join('\n'),
    );
  }
}

@Command({
  name: 'webhooks:expire-previous-secret',
  description:
    "end a rotation's overlap now (the previous secret leaked, or the receiver switched): events carry the current signature only",
})
export class WebhookExpirePreviousSecretCommand extends EndpointCommand {
  protected async execute(_params: string[], options: EndpointOptions): Promise<void> {
    const ended = await this.webhooks.expirePreviousSecret(required(options.endpoint, 'endpoint'));
    await this.audit.record({ command: 'webhooks:expire-previous-secret', company: ended.company_id, resources: [ended.endpoint_id] });
    this.output.result(
      ended,
      ended.expired ? `the previous secret of ${ended.endpoint_id} no longer signs` : 'no previous secret was signing',
    );
  }
}

@Command({ name: 'webhooks:deliveries', description: "an endpoint's latest deliveries: status, attempts, last answer and latency" })
export class WebhookDeliveriesCommand extends EndpointCommand<WebhookDeliveriesOptions> {
  @Option({ flags: '--limit <n>', description: 'how many, newest first (1 to 1000, default 50)' })
  parseLimit(value: string): number {
    return integerOption('limit', value, 1, 1000);
  }

  @Option({ flags: '--status <status>', description: `only ${DELIVERY_STATUSES.join(', ')}` })
  parseStatus(value: string): DeliveryStatus {
    return choiceOption('status', value, DELIVERY_STATUSES);
  }

  protected async execute(_params: string[], options: WebhookDeliveriesOptions): Promise<void> {
    const data = await this.webhooks.deliveries(required(options.endpoint, 'endpoint'), options.limit ?? 50, options.status);
    const lines = data.map(
      (d) =>
        `${d.delivery_id}  ${d.change_id}  ${d.event_type.padEnd(22)}  ${d.status.padEnd(9)}  attempts ${d.attempts}` +
        `${d.last_status !== null ? `  HTTP ${d.last_status}` : ''}${d.last_error ? `  ${d.last_error}` : ''}` +
        `${d.last_latency_ms !== null ? `  ${d.last_latency_ms} ms` : ''}${d.next_attempt_at && d.status === 'pending' ? `  next ${d.next_attempt_at}` : ''}${d.replay ? '  (replay)' : ''}`,
    );
    this.output.result({ data }, lines.length ? lines.join('\n') : 'no deliveries');
  }
}

@Command({
  name: 'webhooks:replay',
  description: 'send again every change after a point: an event cursor, or an RFC 3339 date-time (changes committed after it)',
})
export class WebhookReplayCommand extends EndpointCommand<WebhookReplayOptions> {
  @Option({ flags: '--from <cursor|date-time>', description: "an event's cursor, or an RFC 3339 date-time with an offset" })
  parseFrom(value: string): string {
    return textOption('from', value);
  }

  protected async execute(_params: string[], options: WebhookReplayOptions): Promise<void> {
    const replayed = await this.webhooks.replay(required(options.endpoint, 'endpoint'), required(options.from, 'from'));
    await this.audit.record({ command: 'webhooks:replay', company: replayed.company_id, resources: [replayed.endpoint_id] });
    this.output.result(replayed, `queued ${replayed.queued} events for ${replayed.endpoint_id}`);
  }
}

export const WEBHOOK_COMMANDS = [
  WebhookAddCommand,
  WebhookListCommand,
  WebhookRemoveCommand,
  WebhookRotateSecretCommand,
  WebhookExpirePreviousSecretCommand,
  WebhookDeliveriesCommand,
  WebhookReplayCommand,
];
