import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ALL_SCOPES } from '../contract/scopes';

/** The form fields of `POST /oauth/token`, for the interface description. */
export class TokenRequestForm {
  @ApiProperty({ enum: ['client_credentials'] })
  grant_type: string;

  @ApiPropertyOptional({ description: 'The client id (`cli_…`), unless sent with HTTP Basic.' })
  client_id?: string;

  @ApiPropertyOptional({ description: 'The client secret, unless sent with HTTP Basic.' })
  client_secret?: string;

  @ApiPropertyOptional({ description: `Space-separated scopes, one or more; omitted: every scope of the client; present but empty (or only spaces): \`400 invalid_scope\`. Scopes: ${ALL_SCOPES.join(' ')}.` })
  scope?: string;
}

export class TokenResponseDto {
  @ApiProperty({ description: 'RS256 JWT; send it as `Authorization: Bearer <access_token>`.' })
  access_token: string;

  @ApiProperty({ enum: ['Bearer'] })
  token_type: string;

  @ApiProperty({ type: 'integer', description: 'Lifetime in seconds (3600 by default).', example: 3600 })
  expires_in: number;

  @ApiProperty({ description: 'Space-separated scopes granted.', example: 'meetings.read calls.read' })
  scope: string;
}
