import { Controller, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { RawResponse } from '../common/http/envelope.interceptor';
import { OAuthErrorBody } from '../common/openapi/oauth-error.dto';
import { CLIENT_BASIC_SCHEME } from '../common/openapi/security-schemes';
import { NoQuery } from '../common/validation/query-params';
import { RateLimitPolicies } from '../rate-limit/rate-limit.decorators';
import { Public } from './auth.decorators';
import { TokenRequestForm, TokenResponseDto } from './token.dto';
import { TOKEN_MEDIA_TYPE } from './token-body.middleware';
import { TokenResponse, TokenService } from './token.service';

const oauthError = (status: number, description: string) => ApiResponse({ status, type: OAuthErrorBody, description });

@ApiTags('Authentication')
@Public()
@RawResponse()
@Controller('oauth')
export class TokenController {
  constructor(private readonly tokens: TokenService) {}

  @Post('token')
  @HttpCode(200)
  @RateLimitPolicies('token')
  @ApiOperation({
    operationId: 'issueAccessToken',
    summary: 'Issue an access token (OAuth 2.0 client credentials)',
    description:
      'Authenticate with `client_id` and `client_secret` in the body, or with HTTP Basic (form-encoded id and secret), not both. ' +
      'No refresh token: request a new token when this one expires or after a `401 INVALID_ACCESS_TOKEN`.',
  })
  @ApiConsumes(TOKEN_MEDIA_TYPE)
  @ApiBody({ type: TokenRequestForm })
  // Basic or body credentials: the empty requirement makes Basic optional (decorators apply bottom-up).
  @ApiSecurity({})
  @ApiSecurity(CLIENT_BASIC_SCHEME)
  @ApiOkResponse({ type: TokenResponseDto, description: 'Headers forbid caching (`Cache-Control: no-store`, `Pragma: no-cache`).' })
  @oauthError(400, '`invalid_request`, `unsupported_grant_type` or `invalid_scope`.')
  @oauthError(401, '`invalid_client`: client authentication failed (with `WWW-Authenticate: Basic` when Basic was used).')
  @oauthError(403, '`API_ACCESS_DISABLED`: the company has API access turned off.')
  @oauthError(413, '`PAYLOAD_TOO_LARGE`: the body exceeds 8 KiB.')
  @oauthError(415, '`UNSUPPORTED_MEDIA_TYPE`: the body is not application/x-www-form-urlencoded.')
  @oauthError(503, '`SERVICE_UNAVAILABLE`: a required dependency is down; retry with backoff.')
  issue(@Req() req: Request, @Query() _query: NoQuery): Promise<TokenResponse> {
    return this.tokens.issue(req.body, req.headers.authorization, req.ip);
  }
}
