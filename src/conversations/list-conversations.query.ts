import { DateTimeParam, LaterThan, PageQuery } from '../common/validation/query-params';
import { Instant } from '../common/validation/instant';

/** Query of `GET /v1/emails` and `GET /v1/chat`. Bounds are exclusive and on the latest message's instant. */
export class ListConversationsQuery extends PageQuery {
  @DateTimeParam('Conversations whose latest message (`last_message_at`) is after this instant.')
  last_message_after?: Instant;

  @DateTimeParam('Conversations whose latest message (`last_message_at`) is before this instant.')
  @LaterThan('last_message_after')
  last_message_before?: Instant;

  /** The filters as the cursor binds them: normalized, `limit` and `cursor` left out. */
  filters(): Record<string, string | undefined> {
    return { last_message_after: this.last_message_after?.iso, last_message_before: this.last_message_before?.iso };
  }
}

/** Query of the messages routes: a page, nothing else. */
export class ListMessagesQuery extends PageQuery {}
