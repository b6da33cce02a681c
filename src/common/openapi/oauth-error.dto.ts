import { ApiProperty } from '@nestjs/swagger';

/** OAuth 2.0 error shape of the token endpoint. */
export class OAuthErrorBody {
  @ApiProperty({ description: 'RFC 6749 code where one applies, otherwise the stable code of the error table.' })
  error: string;

  @ApiProperty()
  error_description: string;
}
