import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { SCOPES } from './contract/scopes';
import { ErrorEnvelope } from './common/openapi/error-envelope.dto';
import { OAuthErrorBody } from './common/openapi/oauth-error.dto';
import { PaginationDto } from './common/openapi/pagination.dto';
import { upgradeToOpenApi31 } from './common/openapi/openapi-31';
import { documentResponseHeaders } from './common/openapi/response-headers';
import { API_VERSION, CLIENT_BASIC_SCHEME, OAUTH2_SCHEME } from './common/openapi/security-schemes';
import { AppConfig } from './config/app-config';
import { documentRateLimits } from './rate-limit/rate-limit.openapi';

/*
 * The OpenAPI document, assembled from the routes' decorators, then completed by what the
 * pipeline adds to every answer (rate limits, response headers) and written as OpenAPI 3.1.
 */

/** One tag per resource, in the order a reader meets them. */
const TAGS: Array<[string, string]> = [
  ['Authentication', 'OAuth 2.0 client credentials: exchange a client id and secret for a bearer token.'],
  ['Context', 'Who the token is: its client, company, scopes and rate-limit state.'],
  ['Meetings', 'Meetings recorded by the bot, with their evaluation, template answers and transcript.'],
  ['Calls', 'VoIP calls: the same shape as meetings, in their own collection.'],
  ['Emails', "Email conversations, deduplicated across the company's mailboxes, and their messages."],
  ['Chat', "Chat conversations of the company's sellers and their messages."],
  ['Changes', 'The change feed: what changed since a cursor, in commit order, never skipping, never expiring.'],
  ['Export', 'The whole company from one snapshot, as one NDJSON stream, handing over to the change feed.'],
  ['Audit events', "The company's own access log: which client read what, and when (scope audit.read)."],
  ['Webhook endpoints', "The company's own webhook endpoints and their deliveries: register, pause, rotate, test, retry, replay (scope webhooks.manage)."],
];

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const { publicBaseUrl } = app.get(AppConfig);
  const builder = new DocumentBuilder()
    .setTitle('Conversation Read API')
    .setDescription(
      'Read-only, company-scoped access to captured sales conversations: meetings, calls, email and chat conversations. ' +
        'Obtain a token with the OAuth 2.0 client-credentials grant at `POST /oauth/token`, then send it as `Authorization: Bearer <token>`.',
    )
    .setVersion(API_VERSION)
    .addServer(publicBaseUrl)
    .addOAuth2(
      { type: 'oauth2', flows: { clientCredentials: { tokenUrl: `${publicBaseUrl}/oauth/token`, scopes: { ...SCOPES } } } },
      OAUTH2_SCHEME,
    )
    .addBasicAuth(
      { type: 'http', scheme: 'basic', description: 'Token endpoint only: form-encoded client id and secret, base64.' },
      CLIENT_BASIC_SCHEME,
    );
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), { extraModels: [ErrorEnvelope, OAuthErrorBody, PaginationDto] });
  documentRateLimits(document, OAUTH2_SCHEME);
  documentResponseHeaders(document, OAUTH2_SCHEME);
  upgradeToOpenApi31(document);
  return document;
}

/** `GET /openapi.json` (the document) and `GET /docs` (the human page). */
export function setupOpenApi(app: INestApplication): OpenAPIObject {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  return document;
}
