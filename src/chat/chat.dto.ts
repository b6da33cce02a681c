import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageEnvelope, SingleEnvelope } from '../common/openapi/envelopes';
import { AccountDto, DATE_TIME, UserDto } from '../common/openapi/resources.dto';
import { idPattern } from '../common/ids/public-id';
import { Direction, DIRECTIONS } from '../conversations/conversation.vocabulary';

/** Response schemas of the chat routes: the interface description, and the types chat.presenter.ts builds. */
const NULLABLE_DATE_TIME = { ...DATE_TIME, nullable: true };

export class ChatContactDto {
  @ApiProperty({ type: 'string', nullable: true, description: 'Null for groups.' }) phone: string | null;
  @ApiProperty() name: string;
}

export class ChatSellerDto {
  @ApiProperty({ type: UserDto }) user: UserDto;
  @ApiProperty() phone: string;
}

export class ChatAuthorDto {
  @ApiProperty() phone: string;
  @ApiProperty() name: string;
}

export class ChatMediaDto {
  @ApiProperty({ type: 'string', nullable: true }) file_name: string | null;
  @ApiProperty() mime_type: string;
  @ApiProperty({ type: 'integer' }) size_bytes: number;
}

export class ChatMessageDto {
  @ApiProperty({ pattern: idPattern('chatMessage') }) id: string;
  @ApiProperty({ enum: ['chat_message'] }) object: 'chat_message';
  @ApiProperty({ pattern: idPattern('chatConversation') }) conversation_id: string;
  @ApiProperty(DATE_TIME) sent_at: string;
  @ApiProperty({ enum: DIRECTIONS }) direction: Direction;
  @ApiProperty({ type: ChatAuthorDto }) author: ChatAuthorDto;
  @ApiProperty({ description: '`text`, `audio`, or another message type.' }) type: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Sanitized text; the current text of an edited message; null on a tombstone.',
  })
  text: string | null;
  @ApiProperty({ type: ChatMediaDto, nullable: true, description: 'Metadata only; media content is never served.' })
  media: ChatMediaDto | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'Audio transcription when one exists.' }) transcription: string | null;
  @ApiProperty(NULLABLE_DATE_TIME) edited_at: string | null;
  @ApiProperty({ ...NULLABLE_DATE_TIME, description: 'Set on a message deleted for everyone (a tombstone).' }) deleted_at: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: '`revoked_for_everyone`, or another reason.' }) deleted_reason: string | null;
}

/** The parts `include` asked for. */
export class ChatIncludedDto {
  @ApiProperty({
    type: [ChatMessageDto],
    description: 'The conversation\'s messages from its first, in the messages route\'s order and shape: every one, or as many as fit the byte budget (at least one).',
  })
  messages: ChatMessageDto[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'Null when `messages` holds every message. Otherwise a cursor of `GET /v1/chat/{chat_id}/messages` that continues after the last message embedded.',
  })
  messages_next_cursor: string | null;
}

export class ChatConversationDto {
  @ApiProperty({ pattern: idPattern('chatConversation') }) id: string;
  @ApiProperty({ enum: ['chat_conversation'] }) object: 'chat_conversation';
  @ApiProperty({ description: '`chat_web`, or another capture source.' }) source: string;
  @ApiProperty() is_group: boolean;
  @ApiProperty({ type: ChatContactDto }) contact: ChatContactDto;
  @ApiProperty({ type: ChatSellerDto }) seller: ChatSellerDto;
  @ApiProperty({ type: [AccountDto] }) accounts: AccountDto[];
  @ApiProperty(DATE_TIME) first_message_at: string;
  @ApiProperty({ ...DATE_TIME, description: 'Moves only when a message arrives; an edit or a deletion does not move it.' })
  last_message_at: string;
  @ApiProperty({ enum: DIRECTIONS }) last_message_direction: Direction;
  @ApiProperty({ ...NULLABLE_DATE_TIME, description: 'Set when the chat is deleted; a deleted chat still answers.' })
  deleted_at: string | null;
  @ApiProperty({ type: 'string', nullable: true }) deleted_reason: string | null;
  @ApiPropertyOptional({
    type: () => ChatIncludedDto,
    description:
      'Only with `include=messages`: the messages of the conversation, as the messages route shows them, in its order; a conversation larger than the byte budget carries its first ones and `messages_next_cursor`.',
  })
  included?: ChatIncludedDto;
}

export const ChatConversationEnvelope = SingleEnvelope(ChatConversationDto, 'ChatConversationEnvelope');
export const ChatConversationListEnvelope = PageEnvelope(ChatConversationDto, 'ChatConversationListEnvelope');
export const ChatMessageListEnvelope = PageEnvelope(ChatMessageDto, 'ChatMessageListEnvelope');
export const ChatMessageEnvelope = SingleEnvelope(ChatMessageDto, 'ChatMessageEnvelope');
