import { ApiProperty } from '@nestjs/swagger';
import { idPattern } from '../ids/public-id';

/** Schemas of the objects several resources embed (accounts, users), described once. */
/** Every instant the API answers: RFC 3339 in UTC with exactly six fractional digits (PostgreSQL's precision). */
export const DATE_TIME = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$',
} as const;

export class AccountDto {
  @ApiProperty({ pattern: idPattern('account') }) id: string;
  @ApiProperty() domain: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'As stored; formatting varies.' }) cnpj: string | null;
}

/** A user as embedded in a resource; `email` may be null where the spec says so. */
export class UserRefDto {
  @ApiProperty({ pattern: idPattern('user') }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'string', nullable: true }) email: string | null;
}

/** A user whose email is always known (mailbox owners, chat sellers). */
export class UserDto {
  @ApiProperty({ pattern: idPattern('user') }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'email' }) email: string;
}
