import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateBy, ValidateIf } from 'class-validator';
import { CHANGE_OBJECTS, ChangeObject } from '../changes/change.vocabulary';
import { idPattern } from '../common/ids/public-id';
import { PageEnvelope, SingleEnvelope } from '../common/openapi/envelopes';
import { DATE_TIME } from '../common/openapi/resources.dto';
import { PageQuery } from '../common/validation/query-params';
import { DELIVERY_ERROR_KINDS, DeliveryErrorKind } from '../webhooks/webhook-delivery';
import { DELIVERY_STATUSES, DeliveryStatus, PUBLIC_ENDPOINT_STATES, PublicEndpointState } from '../webhooks/webhook.vocabulary';
import { URL_MAX_LENGTH } from '../webhooks/webhook-destination';

/** The longest description an endpoint may have. */
export const DESCRIPTION_MAX_LENGTH = 200;

const TYPES_DESCRIPTION =
  'Object types of the change feed to send (`meeting`, `call`, `email`, `email_message`, `chat`, `chat_message`), each one the token can read.';

// Bodies. Validated by BodyValidationPipe: unknown fields and wrong types are `400 INVALID_REQUEST`,
// an unknown type `400 INVALID_FILTER` (the code's context), values are never converted.

/** `types`: a non-empty array of distinct strings (else INVALID_REQUEST), each a feed type (else INVALID_FILTER). */
const isTypeList = (value: unknown): value is string[] =>
  Array.isArray(value) &&
  value.length >= 1 &&
  value.length <= CHANGE_OBJECTS.length &&
  value.every((t) => typeof t === 'string') &&
  new Set(value).size === value.length;

const typesRules = [
  ValidateBy({
    name: 'typeList',
    validator: {
      validate: isTypeList,
      defaultMessage: () => `types must be an array of 1 to ${CHANGE_OBJECTS.length} distinct object types`,
    },
  }),
  // Judged only on a well-formed list, so whichever runs first, a malformed one is INVALID_REQUEST.
  ValidateBy(
    {
      name: 'knownTypes',
      validator: {
        validate: (value) => !isTypeList(value) || value.every((t) => (CHANGE_OBJECTS as readonly string[]).includes(t)),
        defaultMessage: () => `types must be some of ${CHANGE_OBJECTS.join(', ')}`,
      },
    },
    { context: { code: 'INVALID_FILTER' } },
  ),
];

/** `description`: a string of at most 200 characters, or null (none). */
const DescriptionField = () =>
  applyDecorators(
    ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH }),
    ValidateIf((_, value) => value !== null && value !== undefined),
    IsString({ message: 'description must be a string or null' }),
    MaxLength(DESCRIPTION_MAX_LENGTH, { message: `description must be at most ${DESCRIPTION_MAX_LENGTH} characters` }),
  );

/** Optional: absent is fine, but `null` is a value of the wrong type (unlike `IsOptional`, which lets null through). */
const Absent = () => ValidateIf((_, value) => value !== undefined);

const apply =
  (decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    decorators.forEach((d) => d(target, key));

/** `POST /v1/webhook-endpoints`. */
export class CreateWebhookEndpointBody {
  @ApiProperty({ maxLength: URL_MAX_LENGTH, description: 'The https URL that receives the events (public addresses only).' })
  @IsString({ message: 'url must be a string' })
  @MinLength(1, { message: 'url must not be empty' })
  url: string;

  @ApiPropertyOptional({
    type: [String],
    enum: CHANGE_OBJECTS,
    description: `${TYPES_DESCRIPTION} Default: every type the token can read.`,
  })
  @Absent()
  @apply(typesRules)
  types?: ChangeObject[];

  @DescriptionField()
  description?: string | null;
}

/** `PATCH /v1/webhook-endpoints/{endpoint_id}`: any of these, at least one. */
export class UpdateWebhookEndpointBody {
  @ApiPropertyOptional({ maxLength: URL_MAX_LENGTH })
  @Absent()
  @IsString({ message: 'url must be a string' })
  @MinLength(1, { message: 'url must not be empty' })
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: CHANGE_OBJECTS, description: TYPES_DESCRIPTION })
  @Absent()
  @apply(typesRules)
  types?: ChangeObject[];

  @DescriptionField()
  description?: string | null;

  @ApiPropertyOptional({
    description: '`false` pauses the endpoint (its deliveries wait); `true` resumes it, clears `failing` and sends what waits at once.',
  })
  @Absent()
  @IsBoolean({ message: 'enabled must be true or false' })
  enabled?: boolean;
}

/** `POST /v1/webhook-endpoints/{endpoint_id}/replay`. */
export class ReplayWebhookEndpointBody {
  @ApiProperty({
    description: 'Where to replay from: a cursor of the feed or of an event (its `data.cursor`), or an RFC 3339 date-time with an offset.',
  })
  @IsString({ message: 'from must be a string' })
  @MinLength(1, { message: 'from must not be empty' })
  @MaxLength(4096, { message: 'from must be at most 4096 characters' })
  from: string;
}

// Queries.

/** `GET /v1/webhook-endpoints`. */
export class ListWebhookEndpointsQuery extends PageQuery {}

/** `GET /v1/webhook-endpoints/{endpoint_id}/deliveries`. */
export class ListWebhookDeliveriesQuery extends PageQuery {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this state.' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `state must be one of ${DELIVERY_STATUSES.join(', ')}`, context: { code: 'INVALID_FILTER' } })
  state?: DeliveryStatus;
}

// Answers.

/** A webhook endpoint as its company sees it: never its secret. */
export class WebhookEndpointDto {
  @ApiProperty({ enum: ['webhook_endpoint'] })
  object: 'webhook_endpoint';

  @ApiProperty({ pattern: idPattern('webhookEndpoint') })
  id: string;

  @ApiProperty()
  url: string;

  @ApiProperty({ type: [String], enum: CHANGE_OBJECTS })
  types: ChangeObject[];

  @ApiProperty({ type: 'string', nullable: true })
  description: string | null;

  @ApiProperty({ description: 'False while paused.' })
  enabled: boolean;

  @ApiProperty({
    enum: PUBLIC_ENDPOINT_STATES,
    description: '`disabled`: paused, deliveries wait; `failing`: a delivery used up its retries, until the next success or a resume.',
  })
  state: PublicEndpointState;

  @ApiProperty({ ...DATE_TIME, type: 'string', nullable: true })
  failing_since: string | null;

  @ApiProperty(DATE_TIME)
  created_at: string;

  @ApiProperty(DATE_TIME)
  updated_at: string;
}

/** What a create answers: the endpoint and its signing secret, shown this once. */
export class CreatedWebhookEndpointDto extends WebhookEndpointDto {
  @ApiProperty({ pattern: '^whsec_', description: 'The signing secret (Standard Webhooks): shown only in this answer.' })
  secret: string;
}

export class RotatedSecretDto {
  @ApiProperty({ pattern: '^whsec_', description: 'The new signing secret: shown only in this answer.' })
  secret: string;

  @ApiProperty({ ...DATE_TIME, description: 'Until when the previous secret signs too (both signatures in `webhook-signature`).' })
  previous_secret_expires_at: string;
}

/** One delivery of one event to the endpoint: what became of it, never its body. */
export class WebhookDeliveryDto {
  @ApiProperty({ enum: ['webhook_delivery'] })
  object: 'webhook_delivery';

  @ApiProperty({ pattern: idPattern('webhookDelivery') })
  id: string;

  @ApiProperty({ description: 'The `webhook-id` the receiver saw: the change id, or a test event’s id.' })
  event_id: string;

  @ApiProperty({ description: 'The event’s type (`meeting.updated`, `webhook.test`).' })
  type: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  state: DeliveryStatus;

  @ApiProperty({ type: 'integer', description: 'Attempts made.' })
  attempts: number;

  @ApiProperty(DATE_TIME)
  created_at: string;

  @ApiProperty({ ...DATE_TIME, type: 'string', nullable: true })
  last_attempt_at: string | null;

  @ApiProperty({
    ...DATE_TIME,
    type: 'string',
    nullable: true,
    description: 'When a pending delivery is tried next; null while it is being attempted, and once settled.',
  })
  next_attempt_at: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The HTTP status of the last answer, if one came.' })
  last_response_status: number | null;

  @ApiProperty({
    enum: DELIVERY_ERROR_KINDS,
    nullable: true,
    description: 'Why the last attempt failed; null when it succeeded or none was made.',
  })
  last_error: DeliveryErrorKind | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'How long the last attempt took, in milliseconds.' })
  latency_ms: number | null;
}

export class DeliveryQueuedDto {
  @ApiProperty({ pattern: idPattern('webhookDelivery') })
  delivery_id: string;
}

export class ReplayQueuedDto {
  @ApiProperty({ type: 'integer', description: 'Events queued to be sent again.' })
  queued: number;
}

export const WebhookEndpointEnvelope = SingleEnvelope(WebhookEndpointDto, 'WebhookEndpointEnvelope');
export const CreatedWebhookEndpointEnvelope = SingleEnvelope(CreatedWebhookEndpointDto, 'CreatedWebhookEndpointEnvelope');
export const WebhookEndpointsPageEnvelope = PageEnvelope(WebhookEndpointDto, 'WebhookEndpointsPageEnvelope');
export const WebhookDeliveriesPageEnvelope = PageEnvelope(WebhookDeliveryDto, 'WebhookDeliveriesPageEnvelope');
export const RotatedSecretEnvelope = SingleEnvelope(RotatedSecretDto, 'RotatedSecretEnvelope');
export const DeliveryQueuedEnvelope = SingleEnvelope(DeliveryQueuedDto, 'DeliveryQueuedEnvelope');
export const ReplayQueuedEnvelope = SingleEnvelope(ReplayQueuedDto, 'ReplayQueuedEnvelope');
