import { CursorParam, EnumFilter, LimitParam, ListFilter, MAX_PAGE_SIZE, Without } from '../common/validation/query-params';
import { CHANGE_OBJECTS, ChangeObject } from './change.vocabulary';

export const FEED_STARTS = ['beginning', 'now'] as const;
export type FeedStart = (typeof FEED_STARTS)[number];

/** Query of `GET /v1/changes`. */
export class ListChangesQuery {
  @LimitParam(MAX_PAGE_SIZE)
  limit: number = MAX_PAGE_SIZE;

  @CursorParam()
  cursor?: string;

  @ListFilter(CHANGE_OBJECTS, 'The object types to follow (default: every type the token can read). The cursor is bound to them.')
  types?: ChangeObject[];

  @EnumFilter(
    FEED_STARTS,
    'Without a cursor: from the first entry (`beginning`, the default), or an empty page whose cursor is the head (`now`).',
  )
  @Without('cursor')
  start?: FeedStart;
}
