import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiOAuth2, ApiResponse } from '@nestjs/swagger';
import { ErrorEnvelope } from '../common/openapi/error-envelope.dto';
import { OAUTH2_SCHEME } from '../common/openapi/security-schemes';
import { ANY_OF_SCOPES, IS_PUBLIC, REQUIRED_SCOPES } from '../contract/route-metadata';
import { Scope } from '../contract/scopes';

/** A route without a bearer token (probes, the token endpoint). Every other route needs one. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * A `/v1` route: bearer token required (that holds without this decorator too), plus every
 * scope listed. Also documents the security requirement and the auth errors in OpenAPI.
 */
export function Authenticated(...scopes: Scope[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPES, scopes),
    ApiOAuth2(scopes, OAUTH2_SCHEME),
    authErrors(scopes.length ? `INSUFFICIENT_SCOPE without ${scopes.join(' and ')}` : undefined),
  );
}

/**
 * A `/v1` route that needs at least one of `scopes` (what it answers may depend on which):
 * documented as alternative security requirements, one per scope.
 */
export function AuthenticatedByAnyOf(...scopes: Scope[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(ANY_OF_SCOPES, scopes),
    ...scopes.map((scope) => ApiOAuth2([scope], OAUTH2_SCHEME)),
    authErrors(`INSUFFICIENT_SCOPE without any of ${scopes.join(', ')}`),
  );
}

/** The errors every authenticated route may answer, as OpenAPI responses. */
function authErrors(insufficientScope: string | undefined): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiResponse({
      status: 400,
      type: ErrorEnvelope,
      description: 'INVALID_REQUEST: an unknown, repeated or empty query parameter, or a validation code.',
    }),
    ApiResponse({
      status: 401,
      type: ErrorEnvelope,
      description: 'MISSING_ACCESS_TOKEN or INVALID_ACCESS_TOKEN; `WWW-Authenticate: Bearer`.',
    }),
    ApiResponse({
      status: 403,
      type: ErrorEnvelope,
      description: insufficientScope ? `API_ACCESS_DISABLED, or ${insufficientScope}.` : 'API_ACCESS_DISABLED.',
    }),
    ApiResponse({
      status: 503,
      type: ErrorEnvelope,
      description: 'SERVICE_UNAVAILABLE: a required dependency is down; retry with backoff.',
    }),
  );
}
