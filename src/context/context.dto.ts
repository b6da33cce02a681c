import { ApiProperty } from '@nestjs/swagger';
import { RATE_LIMIT_POLICIES } from '../contract/rate-limit-policies';
import { ALL_SCOPES } from '../contract/scopes';

export class ContextClientDto {
  @ApiProperty({ example: 'cli_4Jc8Zr1xVqA2mT9bLw0ePs' })
  id: string;

  @ApiProperty({ example: 'Warehouse sync' })
  name: string;
}

export class ContextCompanyDto {
  @ApiProperty({ example: 'cmp_7Hd2Qx9kLm4Np0Rs6Tv8Wy' })
  id: string;

  @ApiProperty({ example: 'Acme Ltda' })
  name: string;
}

export class RateLimitStateDto {
  @ApiProperty({ enum: RATE_LIMIT_POLICIES })
  policy: string;

  @ApiProperty({ type: 'integer', description: 'Requests allowed per window.' })
  quota: number;

  @ApiProperty({ type: 'integer', description: 'Window length in seconds.' })
  window: number;

  @ApiProperty({ type: 'integer', description: 'Requests left in the current window.' })
  remaining: number;

  @ApiProperty({ type: 'integer', description: 'Seconds until the window resets.' })
  reset: number;
}

/** `GET /v1/context`: who is calling, with what. */
export class ContextDto {
  @ApiProperty({ type: ContextClientDto })
  client: ContextClientDto;

  @ApiProperty({ type: ContextCompanyDto })
  company: ContextCompanyDto;

  @ApiProperty({ enum: ALL_SCOPES, isArray: true, description: 'The scopes this token carries.' })
  scopes: string[];

  @ApiProperty({
    type: RateLimitStateDto,
    isArray: true,
    description:
      'Every rate-limit policy that governs this client, with its state once this request was counted: ' +
      '`client`, `company`, `email_content`, `chat_content`, `export` and `token` (for the client id; the token endpoint also counts per address).',
  })
  rate_limits: RateLimitStateDto[];
}

export class ContextEnvelope {
  @ApiProperty({ type: ContextDto })
  data: ContextDto;

  @ApiProperty({ pattern: '^req_[0-9A-Za-z]+$' })
  request_id: string;
}
