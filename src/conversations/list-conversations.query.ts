import { DateTimeParam, idSetBinding, IncludeParam, LaterThan, PageQuery } from '../common/validation/query-params';
import { Instant } from '../common/validation/instant';

/** Parts a conversation can embed with `include`. */
export const CONVERSATION_PARTS = ['messages'] as const;
export type ConversationPart = (typeof CONVERSATION_PARTS)[number];

const INCLUDE =
  "Parts to embed in each conversation under `included`: `messages`, every message as the messages route shows them (needs the channel's content scope, and counts against its content policy).";

/** Query of `GET /v1/emails` and `GET /v1/chat`. Bounds are exclusive and on the latest message's instant. */
export class ListConversationsQuery extends PageQuery {
  @DateTimeParam('Conversations whose latest message (`last_message_at`) is after this instant.')
  last_message_after?: Instant;

  @DateTimeParam('Conversations whose latest message (`last_message_at`) is before this instant.')
  @LaterThan('last_message_after')
  last_message_before?: Instant;

  @IncludeParam(CONVERSATION_PARTS, INCLUDE)
  include?: ConversationPart[];

  /** Declared, with its channel's id kind, by each channel's controller (conversations.controller.ts). */
  ids?: string[];

  /** The filters as the cursor binds them: normalized, `limit`, `cursor` and `include` left out. */
  filters(): Record<string, string | undefined> {
    return {
      last_message_after: this.last_message_after?.iso,
      last_message_before: this.last_message_before?.iso,
      ids: idSetBinding(this.ids),
    };
  }
}

/** Query of a single conversation: `include` only. */
export class GetConversationQuery {
  @IncludeParam(CONVERSATION_PARTS, INCLUDE)
  include?: ConversationPart[];
}

/** Query of the messages list: a page, and `ids` (declared with the channel's message id kind by its controller). */
export class ListMessagesQuery extends PageQuery {
  ids?: string[];
}
