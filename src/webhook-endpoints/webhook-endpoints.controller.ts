import {
  applyDecorators,
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated } from '../auth/auth.decorators';
import { Page } from '../common/cursors/keyset-page';
import { ApiNotFound, ErrorEnvelope } from '../common/openapi/error-envelope.dto';
import { OwnTransaction } from '../database/tenant-transaction.interceptor';
import { AuditsItself } from '../audit/audit.interceptor';
import { RateLimitPolicies } from '../rate-limit/rate-limit.decorators';
import { BodyValidationPipe, JsonBody } from './json-body';
import {
  CreatedWebhookEndpointDto,
  CreatedWebhookEndpointEnvelope,
  CreateWebhookEndpointBody,
  DeliveryQueuedDto,
  DeliveryQueuedEnvelope,
  ListWebhookDeliveriesQuery,
  ListWebhookEndpointsQuery,
  ReplayQueuedDto,
  ReplayQueuedEnvelope,
  ReplayWebhookEndpointBody,
  RotatedSecretDto,
  RotatedSecretEnvelope,
  UpdateWebhookEndpointBody,
  WebhookDeliveriesPageEnvelope,
  WebhookDeliveryDto,
  WebhookEndpointDto,
  WebhookEndpointEnvelope,
  WebhookEndpointsPageEnvelope,
} from './webhook-endpoint.dto';
import { WebhookEndpointsApi } from './webhook-endpoints.api';

const ENDPOINT_ID = { name: 'endpoint_id', description: 'A webhook endpoint id (`whe_…`).' };
const conflict = (description: string) => ApiResponse({ status: 409, type: ErrorEnvelope, description });

/** What every route here declares: the scope, the policies, its own transaction (it may write). */
const WebhookAdminRoute = () =>
  applyDecorators(
    Authenticated('webhooks.manage'),
    RateLimitPolicies('client', 'company', 'webhook_admin'),
    // The routes write (the API's one write surface): their transaction is a writable tenant
    // transaction of their own (TenantTransaction.runWritable), not the read-only one authentication opened.
    OwnTransaction(),
  );

/** A route that writes: its audit row is written inside its transaction, before it commits (WebhookEndpointsApi). */
const WriteRoute = () => applyDecorators(WebhookAdminRoute(), AuditsItself());

/** What a route with a JSON body declares beside it. */
const JsonBodyRoute = () =>
  applyDecorators(
    UseInterceptors(JsonBody),
    ApiResponse({ status: 413, type: ErrorEnvelope, description: 'PAYLOAD_TOO_LARGE: the body exceeds 16 KiB.' }),
    ApiResponse({ status: 415, type: ErrorEnvelope, description: 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json.' }),
  );

/**
 * The integrator's own webhook endpoints (docs/API.md, "Managing your webhooks"): the one thing
 * the API writes, the company's delivery configuration, never its conversations. The rules are
 * WebhooksService's, the same the admin CLI's `webhooks:*` commands run.
 */
@ApiTags('Webhook endpoints')
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly api: WebhookEndpointsApi) {}

  @Post()
  @WriteRoute()
  @JsonBodyRoute()
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint; its signing secret is shown in this answer only',
    description:
      'The URL must be https and resolve to public addresses only (checked now, after resolution, and again before every delivery). ' +
      '`types` defaults to every type the token can read. With `Idempotency-Key`, a create repeated within 24 h answers the first answer again (same endpoint, same secret).',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: '1 to 255 characters; the same key with another body is `409 IDEMPOTENCY_KEY_REUSED`.',
  })
  @ApiBody({ type: CreateWebhookEndpointBody })
  @ApiCreatedResponse({
    type: CreatedWebhookEndpointEnvelope,
    headers: {
      Location: { description: 'The new endpoint’s path.', schema: { type: 'string' } },
      'Idempotent-Replayed': {
        description: '`true` when this is the first answer to the same Idempotency-Key, answered again.',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  })
  @conflict(
    'WEBHOOK_ENDPOINT_LIMIT: the company has WEBHOOK_ENDPOINTS_MAX endpoints; IDEMPOTENCY_KEY_REUSED: the key was used for another request.',
  )
  create(
    @Body(new BodyValidationPipe()) body: CreateWebhookEndpointBody,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CreatedWebhookEndpointDto> {
    return this.api.create(body, idempotencyKey, res);
  }

  @Get()
  @WebhookAdminRoute()
  @ApiOperation({ operationId: 'listWebhookEndpoints', summary: "The company's webhook endpoints, oldest first" })
  @ApiOkResponse({ type: WebhookEndpointsPageEnvelope })
  list(@Query() query: ListWebhookEndpointsQuery): Promise<Page<WebhookEndpointDto>> {
    return this.api.list(query);
  }

  @Get(':endpoint_id')
  @WebhookAdminRoute()
  @ApiOperation({ operationId: 'getWebhookEndpoint', summary: 'One webhook endpoint' })
  @ApiParam(ENDPOINT_ID)
  @ApiOkResponse({ type: WebhookEndpointEnvelope })
  @ApiNotFound()
  get(@Param('endpoint_id') id: string): Promise<WebhookEndpointDto> {
    return this.api.get(id);
  }

  @Patch(':endpoint_id')
  @WriteRoute()
  @JsonBodyRoute()
  @ApiOperation({
    operationId: 'updateWebhookEndpoint',
    summary: 'Change, pause or resume a webhook endpoint',
    description:
      'Any of `url`, `types`, `description`, `enabled`. `enabled: false` pauses: deliveries wait, none is dropped (a test event is still sent). ' +
      '`enabled: true` resumes: `failing` is cleared and what waits is sent at once.',
  })
  @ApiParam(ENDPOINT_ID)
  @ApiBody({ type: UpdateWebhookEndpointBody })
  @ApiOkResponse({ type: WebhookEndpointEnvelope })
  @ApiNotFound()
  update(
    @Param('endpoint_id') id: string,
    @Body(new BodyValidationPipe({ atLeastOne: true })) body: UpdateWebhookEndpointBody,
  ): Promise<WebhookEndpointDto> {
    return this.api.update(id, body);
  }

  @Delete(':endpoint_id')
  @WriteRoute()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint and its delivery records; nothing more is sent to it',
  })
  @ApiParam(ENDPOINT_ID)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiNotFound()
  async remove(@Param('endpoint_id') id: string): Promise<void> {
    await this.api.remove(id);
  }

  @Post(':endpoint_id/rotate-secret')
  @WriteRoute()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'A new signing secret; the previous one keeps signing for 24 h',
    description:
      'Both signatures are in `webhook-signature` until `previous_secret_expires_at`; a rotation meanwhile is `409 ROTATION_IN_PROGRESS`.',
  })
  @ApiParam(ENDPOINT_ID)
  @ApiOkResponse({ type: RotatedSecretEnvelope })
  @ApiNotFound()
  @conflict('ROTATION_IN_PROGRESS: the previous secret still signs.')
  rotateSecret(@Param('endpoint_id') id: string): Promise<RotatedSecretDto> {
    return this.api.rotateSecret(id);
  }

  @Get(':endpoint_id/deliveries')
  @WebhookAdminRoute()
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: "The endpoint's deliveries, newest first: each one's outcome, never its body",
  })
  @ApiParam(ENDPOINT_ID)
  @ApiOkResponse({ type: WebhookDeliveriesPageEnvelope })
  @ApiNotFound()
  deliveries(@Param('endpoint_id') id: string, @Query() query: ListWebhookDeliveriesQuery): Promise<Page<WebhookDeliveryDto>> {
    return this.api.deliveries(id, query);
  }

  @Post(':endpoint_id/deliveries/:delivery_id/retry')
  @WriteRoute()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Send that event again now, as one more attempt, whatever its state',
  })
  @ApiParam(ENDPOINT_ID)
  @ApiParam({ name: 'delivery_id', description: 'A delivery id (`whd_…`).' })
  @ApiAcceptedResponse({ type: DeliveryQueuedEnvelope })
  @ApiNotFound()
  retry(@Param('endpoint_id') id: string, @Param('delivery_id') deliveryId: string): Promise<DeliveryQueuedDto> {
    return this.api.retry(id, deliveryId);
  }

  @Post(':endpoint_id/test')
  @WriteRoute()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'testWebhookEndpoint',
    summary: 'Send a signed `webhook.test` event, recorded as a delivery (a paused endpoint gets it too)',
  })
  @ApiParam(ENDPOINT_ID)
  @ApiAcceptedResponse({ type: DeliveryQueuedEnvelope })
  @ApiNotFound()
  test(@Param('endpoint_id') id: string): Promise<DeliveryQueuedDto> {
    return this.api.test(id);
  }

  @Post(':endpoint_id/replay')
  @WriteRoute()
  @JsonBodyRoute()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'replayWebhookEndpoint',
    summary: 'Send again every change after a point of the feed (a cursor) or a date-time',
  })
  @ApiParam(ENDPOINT_ID)
  @ApiBody({ type: ReplayWebhookEndpointBody })
  @ApiAcceptedResponse({ type: ReplayQueuedEnvelope })
  @ApiNotFound()
  replay(@Param('endpoint_id') id: string, @Body(new BodyValidationPipe()) body: ReplayWebhookEndpointBody): Promise<ReplayQueuedDto> {
    return this.api.replay(id, body.from);
  }
}
