import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { SCOPES } from '../../auth/scopes';
import { documentRateLimits } from '../../rate-limit/rate-limit.openapi';
import { AppConfig } from '../../config/app-config';
import { ErrorEnvelope, OAuthErrorBody, PaginationDto } from './error-envelope.dto';
import { upgradeToOpenApi31 } from './openapi-31';
import { documentResponseHeaders } from './response-headers';

export const API_VERSION = '0.1.0';
export const OAUTH2_SCHEME = 'oauth2';
/** HTTP Basic client authentication at the token endpoint (RFC 6749 §2.3.1). */
export const CLIENT_BASIC_SCHEME = 'client_basic';

/** One tag per resource, in the order a reader meets them. */
const TAGS: Array<[string, string]> = [
  ['Authentication', 'OAuth 2.0 client credentials: exchange a client id and secret for a bearer token.'],
  ['Context', 'Who the token is: its client, company, scopes and rate-limit state.'],
  ['Meetings', 'Meetings recorded by the bot, with their evaluation, template answers and transcript.'],
  ['Calls', 'VoIP calls: the same shape as meetings, in their own collection.'],
  ['Emails', "Email conversations, deduplicated across the company's mailboxes, and their messages."],
  ['Chat', "Chat conversations of the company's sellers and their messages."],
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

/**
 * `Content-Security-Policy` of `/docs`: Swagger UI's own scripts only (none inline), its styles
 * (it writes some inline), images and fonts from here or data URLs, requests ("try it out") to
 * this origin and the public base URL's, no framing, no plugins, no base or form targets.
 */
export function docsContentSecurityPolicy(publicBaseUrl: string): string {
  const api = new URL(publicBaseUrl).origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${api}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ');
}
