import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, ValidateBy } from 'class-validator';
import { StatusRange } from '../audit/audit-read-sql';
import { ID_BODY_LENGTH, ID_PREFIX } from '../common/ids/public-id';
import { Instant } from '../common/validation/instant';
import { DateTimeParam, LaterThan, PageQuery } from '../common/validation/query-params';

const ID_BODY = `[0-9A-Za-z]{${ID_BODY_LENGTH}}`;
const ANY_PREFIX = Object.values(ID_PREFIX)
  .map((p) => p.slice(0, -1))
  .join('|');
export const CLIENT_ID_PATTERN = `^${ID_PREFIX.client}${ID_BODY}$`;
export const RESOURCE_ID_PATTERN = `^(${ANY_PREFIX})_${ID_BODY}$`;
/**
 * The shape of a route template (`GET /v1/meetings/{meeting_id}`) or of an admin command the trail
 * records (`webhooks:add`); which ones exist, the service checks.
 */
export const ROUTE_PATTERN = '^([A-Z]{3,7} /[A-Za-z0-9_/{}.-]{0,200}|[a-z]{1,20}:[a-z-]{1,40})$';
export const STATUS_PATTERN = '^[1-5]([0-9]{2}|xx)$';

/** A status filter's text (`404`, `4xx`) as the codes it admits. */
export function statusRange(text: string): StatusRange {
  const first = Number(text[0]) * 100;
  return text.endsWith('xx') ? { min: first, max: first + 99 } : { min: Number(text), max: Number(text) };
}

/** A value that did not match its filter's pattern, kept to be refused by validation. */
class Unmatched {
  constructor(readonly value: unknown) {}
}

/** A filter whose value must match `pattern`, read by `read` into the filter's value; otherwise INVALID_FILTER. */
function PatternFilter<T>(pattern: string, description: string, message: string, read: (text: string) => T = (text) => text as T) {
  const regex = new RegExp(pattern);
  return applyDecorators(
    ApiPropertyOptional({ type: 'string', pattern, description }),
    Transform(({ value }) => (typeof value === 'string' && regex.test(value) ? read(value) : new Unmatched(value))),
    IsOptional(),
    ValidateBy(
      { name: 'patternFilter', validator: { validate: (v) => !(v instanceof Unmatched), defaultMessage: () => message } },
      {
        context: { code: 'INVALID_FILTER' },
      },
    ),
  );
}

/** Query of `GET /v1/audit-events`. */
export class ListAuditEventsQuery extends PageQuery {
  @PatternFilter(CLIENT_ID_PATTERN, "Only this client's requests (`cli_…`).", 'client_id must be a client id (cli_…).')
  client_id?: string;

  @PatternFilter(
    ROUTE_PATTERN,
    'Only requests answered by this route: its method and template exactly as events show them, e.g. `GET /v1/meetings/{meeting_id}` or `POST /oauth/token`; or an admin command events show (`client:expire-previous-secret`, `webhooks:add`, …).',
    'route must be one of the API’s route templates, such as GET /v1/meetings/{meeting_id}.',
  )
  route?: string;

  @PatternFilter<StatusRange>(
    STATUS_PATTERN,
    'Only requests answered with this status: a code (`404`) or a class (`4xx`).',
    'status must be an HTTP status code (such as 404) or a class (such as 4xx).',
    (text) =>
      text.endsWith('xx') ? { min: Number(text[0]) * 100, max: Number(text[0]) * 100 + 99 } : { min: Number(text), max: Number(text) },
  )
  status?: StatusRange;

  @PatternFilter(
    RESOURCE_ID_PATTERN,
    'Only requests whose answer named this id (a record read, listed, embedded or told of by the change feed): "who read this meeting?"',
    'resource_id must be an id of the API (such as mtg_…).',
  )
  resource_id?: string;

  @DateTimeParam('Only events that occurred after this instant.')
  occurred_after?: Instant;

  @DateTimeParam('Only events that occurred before this instant.')
  @LaterThan('occurred_after')
  occurred_before?: Instant;
}
