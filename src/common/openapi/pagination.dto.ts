import { ApiProperty } from '@nestjs/swagger';

/** `pagination` of every list answer: the page size asked, whether more follow, and the cursor to the next page. */
export class PaginationDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100 })
  limit: number;

  @ApiProperty()
  has_more: boolean;

  @ApiProperty({ type: 'string', nullable: true, pattern: '^cur_[A-Za-z0-9_-]+$' })
  next_cursor: string | null;
}
