import { Controller, Get, Param, Query, Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { ID_PREFIX } from '../common/ids/public-id';
import { ApiNotFound } from '../common/openapi/error-envelope.dto';
import { IdsFilter, NoQuery } from '../common/validation/query-params';
import { ContentPolicy, IncludeCosts, IncludePolicy } from '../rate-limit/rate-limit.decorators';
import { idParamOf, named } from './collection-descriptor';
import { ConversationChannel } from './conversation-channel';
import { ConversationsService } from './conversations.service';
import { MessageRowBase, PositionedRow } from './conversations.repository';
import { GetConversationQuery, ListConversationsQuery, ListMessagesQuery } from './list-conversations.query';

/**
 * The four routes of a conversation channel, declared once and instantiated for emails and
 * for chat: same handlers, the channel's path, id parameters, scopes, policy and schemas.
 */
export function conversationsController<C extends PositionedRow, M extends MessageRowBase, CD, MD>(
  c: ConversationChannel<C, M, CD, MD>,
): Type {
  const param = idParamOf(c);
  const messageParam = {
    name: 'message_id',
    description: `A message id (\`${ID_PREFIX[c.messageIdKind]}…\`) of that ${c.noun}.`,
  };

  /** The list's query, its `ids` of this channel's conversations. */
  class ListQuery extends ListConversationsQuery {}
  IdsFilter(c.idKind, `Only these ${c.noun}s (combined with the other filters), in the list's order.`)(ListQuery.prototype, 'ids');
  /** The messages list's query, its `ids` of this channel's messages. */
  class MessagesQuery extends ListMessagesQuery {}
  IdsFilter(c.messageIdKind, `Only these messages of the ${c.noun}, in the list's order.`)(MessagesQuery.prototype, 'ids');

  @ApiTags(c.tag)
  @Controller(c.path)
  class ConversationsController {
    constructor(readonly conversations: ConversationsService) {}

    @Get()
    @Authenticated(c.scope)
    @ApiOperation({
      operationId: `list${c.operationNoun}s`,
      summary: `List ${c.noun}s`,
      description:
        'Ordered by `last_message_at`, then id; keyset pagination. A conversation that receives a message comes again later. A page may hold fewer conversations than `limit` when its body reaches the byte budget: only `has_more` says whether more follow.',
    })
    @ApiOkResponse({ type: c.schemas.list })
    @IncludePolicy('messages', c.contentPolicy)
    @IncludeCosts('messages')
    list(@Query() query: ListQuery) {
      return this.conversations.list(c, query);
    }

    @Get(`:${c.idParam}`)
    @Authenticated(c.scope)
    @ApiOperation({
      operationId: `get${c.operationNoun}`,
      summary: `Retrieve a ${c.noun} (metadata only, unless \`include=messages\`)`,
    })
    @ApiParam(param)
    @ApiOkResponse({ type: c.schemas.single })
    @ApiNotFound()
    @IncludePolicy('messages', c.contentPolicy)
    @IncludeCosts('messages')
    get(@Param(c.idParam) id: string, @Query() query: GetConversationQuery) {
      return this.conversations.get(c, id, query);
    }

    @Get(`:${c.idParam}/messages`)
    @Authenticated(c.scope, c.contentScope)
    @ContentPolicy(c.contentPolicy)
    @ApiOperation({
      operationId: `list${c.operationNoun}Messages`,
      summary: `The ${c.noun}'s messages, oldest first`,
      description: `Keyset over \`(sent_at, id)\`; a cursor is bound to its conversation. Also governed by the \`${c.contentPolicy}\` rate-limit policy.`,
    })
    @ApiParam(param)
    @ApiOkResponse({ type: c.schemas.messages })
    @ApiNotFound()
    messages(@Param(c.idParam) id: string, @Query() query: MessagesQuery) {
      return this.conversations.messages(c, id, query);
    }

    @Get(`:${c.idParam}/messages/:${messageParam.name}`)
    @Authenticated(c.scope, c.contentScope)
    @ContentPolicy(c.contentPolicy)
    @ApiOperation({
      operationId: `get${c.operationNoun}Message`,
      summary: `One of the ${c.noun}'s messages`,
      description: `The message as the messages list shows it; a message of another conversation is not found. Also governed by the \`${c.contentPolicy}\` rate-limit policy.`,
    })
    @ApiParam(param)
    @ApiParam(messageParam)
    @ApiOkResponse({ type: c.schemas.message })
    @ApiNotFound()
    message(@Param(c.idParam) id: string, @Param(messageParam.name) messageId: string, @Query() _query: NoQuery) {
      return this.conversations.message(c, id, messageId);
    }
  }
  return named(ConversationsController, c);
}
