import { ApiProperty } from '@nestjs/swagger';

/** Schemas of the objects several resources embed (accounts, users), described once. */
export const DATE_TIME = { type: 'string', format: 'date-time' } as const;

export class AccountDto {
  @ApiProperty({ pattern: '^acc_' }) id: string;
  @ApiProperty() domain: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'As stored; formatting varies.' }) cnpj: string | null;
}

/** A user as embedded in a resource; `email` may be null where the spec says so. */
export class UserRefDto {
  @ApiProperty({ pattern: '^usr_' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'string', nullable: true }) email: string | null;
}

/** A user whose email is always known (mailbox owners, chat sellers). */
export class UserDto {
  @ApiProperty({ pattern: '^usr_' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'email' }) email: string;
}
