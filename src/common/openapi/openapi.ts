import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { SCOPES } from '../../auth/scopes';
import { documentRateLimits } from '../../rate-limit/rate-limit.openapi';
import { ErrorEnvelope, OAuthErrorBody, PaginationDto } from './error-envelope.dto';

export const API_VERSION = '0.1.0';
export const OAUTH2_SCHEME = 'oauth2';
/** HTTP Basic client authentication at the token endpoint (RFC 6749 §2.3.1). */
export const CLIENT_BASIC_SCHEME = 'client_basic';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Conversation Read API')
    .setDescription(
      'Read-only, company-scoped access to captured sales conversations: meetings, calls, email and chat conversations. ' +
        'Obtain a token with the OAuth 2.0 client-credentials grant at `POST /oauth/token`, then send it as `Authorization: Bearer <token>`.',
    )
    .setVersion(API_VERSION)
    .addOAuth2({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: { ...SCOPES } } } }, OAUTH2_SCHEME)
    .addBasicAuth(
      { type: 'http', scheme: 'basic', description: 'Token endpoint only: form-encoded client id and secret, base64.' },
      CLIENT_BASIC_SCHEME,
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorEnvelope, OAuthErrorBody, PaginationDto] });
  documentRateLimits(document, OAUTH2_SCHEME);
  return document;
}

/** `GET /openapi.json` (the document) and `GET /docs` (the human page). */
export function setupOpenApi(app: INestApplication): OpenAPIObject {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  return document;
}
