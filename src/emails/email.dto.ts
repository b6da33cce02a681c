import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageEnvelope, SingleEnvelope } from '../common/openapi/envelopes';
import { AccountDto, DATE_TIME, UserDto } from '../common/openapi/resources.dto';
import { idPattern } from '../common/ids/public-id';
import { Direction, DIRECTIONS } from '../conversations/conversation.vocabulary';

/** Response schemas of the email routes: the interface description, and the types email.presenter.ts builds. */

export class EmailAddressDto {
  @ApiProperty({ format: 'email' }) address: string;
  @ApiProperty({ type: 'string', nullable: true }) name: string | null;
  @ApiProperty({ description: "True for the company's own addresses." }) internal: boolean;
}

export class MailboxDto {
  @ApiProperty({ format: 'email' }) address: string;
  @ApiProperty({ type: UserDto, nullable: true, description: 'The user the mailbox belongs to, when it is a user mailbox.' })
  owner: UserDto | null;
}

export class AttachmentDto {
  @ApiProperty() filename: string;
  @ApiProperty() mime_type: string;
  @ApiProperty({ type: 'integer' }) size_bytes: number;
}

export class EmailMessageDto {
  @ApiProperty({ pattern: idPattern('emailMessage') }) id: string;
  @ApiProperty({ enum: ['email_message'] }) object: 'email_message';
  @ApiProperty({ pattern: idPattern('emailConversation') }) conversation_id: string;
  @ApiProperty(DATE_TIME) sent_at: string;
  @ApiProperty({ enum: DIRECTIONS }) direction: Direction;
  @ApiProperty() subject: string;
  @ApiProperty() snippet: string;
  @ApiProperty({ description: 'Plain text.' }) body_text: string;
  @ApiProperty({ type: EmailAddressDto }) from: EmailAddressDto;
  @ApiProperty({ type: [EmailAddressDto] }) to: EmailAddressDto[];
  @ApiProperty({ type: [EmailAddressDto] }) cc: EmailAddressDto[];
  @ApiProperty({ type: [AttachmentDto], description: 'Metadata only; attachment content is never served.' }) attachments: AttachmentDto[];
}

/** The parts `include` asked for. */
export class EmailIncludedDto {
  @ApiProperty({
    type: [EmailMessageDto],
    description: 'The conversation\'s messages from its first, in the messages route\'s order and shape: every one, or as many as fit the byte budget (at least one).',
  })
  messages: EmailMessageDto[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'Null when `messages` holds every message. Otherwise a cursor of `GET /v1/emails/{email_id}/messages` that continues after the last message embedded.',
  })
  messages_next_cursor: string | null;
}

export class EmailConversationDto {
  @ApiProperty({ pattern: idPattern('emailConversation') }) id: string;
  @ApiProperty({ enum: ['email_conversation'] }) object: 'email_conversation';
  @ApiProperty() subject: string;
  @ApiProperty(DATE_TIME) first_message_at: string;
  @ApiProperty(DATE_TIME) last_message_at: string;
  @ApiProperty({ type: 'integer' }) message_count: number;
  @ApiProperty() has_attachments: boolean;
  @ApiProperty({ enum: DIRECTIONS }) last_message_direction: Direction;
  @ApiProperty({ type: [EmailAddressDto] }) participants: EmailAddressDto[];
  @ApiProperty({ type: [MailboxDto], description: 'Every mailbox of the company that captured the thread.' }) mailboxes: MailboxDto[];
  @ApiProperty({ type: [AccountDto] }) accounts: AccountDto[];
  @ApiPropertyOptional({
    type: () => EmailIncludedDto,
    description:
      'Only with `include=messages`: the messages of the conversation, as the messages route shows them, in its order; a conversation larger than the byte budget carries its first ones and `messages_next_cursor`.',
  })
  included?: EmailIncludedDto;
}

export const EmailConversationEnvelope = SingleEnvelope(EmailConversationDto, 'EmailConversationEnvelope');
export const EmailConversationListEnvelope = PageEnvelope(EmailConversationDto, 'EmailConversationListEnvelope');
export const EmailMessageListEnvelope = PageEnvelope(EmailMessageDto, 'EmailMessageListEnvelope');
export const EmailMessageEnvelope = SingleEnvelope(EmailMessageDto, 'EmailMessageEnvelope');
