import { ApiProperty } from '@nestjs/swagger';
import { PageEnvelope } from '../common/openapi/envelopes';

/** The client a request was attributed to, as its company knows it. */
export class AuditEventClientDto {
  @ApiProperty({ pattern: '^cli_[0-9A-Za-z]{22}$' })
  id: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'The client’s name; null when the client no longer exists.' })
  name: string | null;
}

/** One request to the API or the token endpoint, as the company's audit trail recorded it. */
export class AuditEventDto {
  @ApiProperty({ pattern: '^aev_[0-9A-Za-z]{22}$', description: 'Stable id of the event.' })
  id: string;

  @ApiProperty({ enum: ['audit_event'] })
  object: 'audit_event';

  @ApiProperty({ format: 'date-time', description: 'When the service received the request (UTC, microseconds).' })
  occurred_at: string;

  @ApiProperty({ description: 'The request’s `X-Request-Id`, as its answer carried it.' })
  request_id: string;

  @ApiProperty({
    type: AuditEventClientDto,
    nullable: true,
    description: 'The client the request was attributed to; null for a refused request no client could be named for.',
  })
  client: AuditEventClientDto | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The address the request came from.' })
  address: string | null;

  @ApiProperty({ description: 'The HTTP method.' })
  method: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The route that answered, as its method and template (`GET /v1/meetings/{meeting_id}`); null when no route matched.',
  })
  route: string | null;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'The route’s path parameters, by name.' })
  path_params: Record<string, string>;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The query parameters as stored: without the cursor, values of credential-like names `[redacted]`, each value cut to 200 characters.',
  })
  query: Record<string, unknown>;

  @ApiProperty({ type: 'integer', description: 'The answer’s HTTP status.' })
  status: number;

  @ApiProperty({ type: [String], description: 'The ids the answer named (a successful read’s records); empty otherwise.' })
  resource_ids: string[];

  @ApiProperty({ description: 'The stored path parameters or query were cut to their bounds: the row is not the whole request.' })
  truncated: boolean;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description:
      'How many requests the event stands for: 1, except for failed authentication (401, and 429 refusals of an address past its failures), recorded once per address, reason and minute with the number of attempts; the event describes the first of them.',
  })
  attempts: number;
}

export const AuditEventsPageEnvelope = PageEnvelope(AuditEventDto, 'AuditEventsPageEnvelope');
