import { ApiProperty } from '@nestjs/swagger';
import { ChangeAction, CHANGE_ACTIONS, ChangedPart, CHANGED_PARTS, ChangeObject, CHANGE_OBJECTS } from './change.vocabulary';

/** One entry of the change feed: which object changed, how, and what to re-read. */
export class ChangeDto {
  @ApiProperty({ pattern: '^chg_[0-9A-Za-z]{22}$', description: 'Stable id of the entry.' })
  id: string;

  @ApiProperty({ enum: CHANGE_OBJECTS })
  object: ChangeObject;

  @ApiProperty({ description: 'Public id of the object (fetch its current state with it).' })
  object_id: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The conversation of a message entry (`email_message`, `chat_message`); null otherwise.',
  })
  parent_id: string | null;

  @ApiProperty({ enum: CHANGE_ACTIONS, description: '`deleted`: the object is gone, its detail route answers 404.' })
  action: ChangeAction;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: [...CHANGED_PARTS] },
    description:
      'For `updated`: the parts to re-read, each a route (`details`: the detail route; `transcript`; `evaluation`: `/evaluations/overall`; `answers`; `messages`: the conversation gained or lost a message). Empty for `created` and `deleted` (read it all, or nothing).',
  })
  changed: ChangedPart[];

  @ApiProperty({
    format: 'date-time',
    description: 'When the writing transaction began (not its commit time; entries are not ordered by it, the cursor is the position).',
  })
  committed_at: string;
}

/** `pagination` of the change feed: like every list's, but `next_cursor` is never null. */
export class ChangesPaginationDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100 })
  limit: number;

  @ApiProperty({ description: 'More entries are available now; poll again at once.' })
  has_more: boolean;

  @ApiProperty({
    pattern: '^cur_[A-Za-z0-9_-]+$',
    description: 'The resume point: store it and poll with it, now or a year from now. Never null.',
  })
  next_cursor: string;
}

/** `{data: [...], pagination, request_id}` of `GET /v1/changes`. */
export class ChangesPageEnvelope {
  @ApiProperty({ type: [ChangeDto] })
  data: ChangeDto[];

  @ApiProperty({ type: ChangesPaginationDto })
  pagination: ChangesPaginationDto;

  @ApiProperty({ pattern: '^req_[0-9A-Za-z]+$' })
  request_id: string;
}
