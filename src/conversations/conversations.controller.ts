import { Controller, Get, Inject, Param, Query, Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { Scope } from '../auth/scopes';
import { ApiNotFound } from '../common/openapi/error-envelope.dto';
import { NoQuery } from '../common/validation/query-params';
import { ContentPolicy } from '../rate-limit/rate-limit-policies';
import { ConversationsService, PositionedRow } from './conversations.service';
import { ListConversationsQuery, ListMessagesQuery } from './list-conversations.query';

export interface ConversationRoutes {
  tag: string;
  /** The noun of operation ids: `Email` gives listEmails, getEmail, listEmailMessages. */
  operationNoun: 'Email' | 'Chat';
  path: string;
  /** Name of the id path parameter, e.g. `email_id`. */
  idParam: string;
  idPrefix: string;
  noun: string;
  scope: Scope;
  contentScope: Scope;
  contentPolicy: 'email_content' | 'chat_content';
  service: Type<ConversationsService<PositionedRow, PositionedRow, unknown, unknown>>;
  schemas: { single: Type; list: Type; messages: Type };
}

/**
 * The three routes of a conversation channel, declared once and instantiated for emails and
 * for chat: same handlers, the channel's path, id parameter, scopes, policy and schemas.
 */
export function conversationsController(r: ConversationRoutes): Type {
  const param = { name: r.idParam, description: `A ${r.noun} id (\`${r.idPrefix}…\`).` };

  @ApiTags(r.tag)
  @Controller(r.path)
  class ConversationsController {
    constructor(@Inject(r.service) readonly conversations: ConversationsService<PositionedRow, PositionedRow, unknown, unknown>) {}

    @Get()
    @Authenticated(r.scope)
    @ApiOperation({
      operationId: `list${r.operationNoun}s`,
      summary: `List ${r.noun}s`,
      description: 'Ordered by `last_message_at`, then id; keyset pagination. A conversation that receives a message comes again later.',
    })
    @ApiOkResponse({ type: r.schemas.list })
    list(@Query() query: ListConversationsQuery) {
      return this.conversations.list(query);
    }

    @Get(`:${r.idParam}`)
    @Authenticated(r.scope)
    @ApiOperation({ operationId: `get${r.operationNoun}`, summary: `Retrieve a ${r.noun} (metadata only)` })
    @ApiParam(param)
    @ApiOkResponse({ type: r.schemas.single })
    @ApiNotFound()
    get(@Param(r.idParam) id: string, @Query() _query: NoQuery) {
      return this.conversations.get(id);
    }

    @Get(`:${r.idParam}/messages`)
    @Authenticated(r.scope, r.contentScope)
    @ContentPolicy(r.contentPolicy)
    @ApiOperation({
      operationId: `list${r.operationNoun}Messages`,
      summary: `The ${r.noun}'s messages, oldest first`,
      description: `Keyset over \`(sent_at, id)\`; a cursor is bound to its conversation. Also governed by the \`${r.contentPolicy}\` rate-limit policy.`,
    })
    @ApiParam(param)
    @ApiOkResponse({ type: r.schemas.messages })
    @ApiNotFound()
    messages(@Param(r.idParam) id: string, @Query() query: ListMessagesQuery) {
      return this.conversations.messages(id, query);
    }
  }
  Object.defineProperty(ConversationsController, 'name', { value: `${r.tag.replace(/\s/g, '')}Controller` });
  return ConversationsController;
}
