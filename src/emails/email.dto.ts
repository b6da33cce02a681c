import { ApiProperty } from '@nestjs/swagger';
import { PageEnvelope, SingleEnvelope } from '../common/openapi/envelopes';
import { AccountDto, DATE_TIME, UserDto } from '../common/openapi/resources.dto';

/** Response schemas of the email routes, for the interface description (the wire format is email.presenter.ts). */
const DIRECTIONS = ['inbound', 'outbound'];

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

export class EmailConversationDto {
  @ApiProperty({ pattern: '^eml_' }) id: string;
  @ApiProperty({ enum: ['email_conversation'] }) object: string;
  @ApiProperty() subject: string;
  @ApiProperty(DATE_TIME) first_message_at: string;
  @ApiProperty(DATE_TIME) last_message_at: string;
  @ApiProperty({ type: 'integer' }) message_count: number;
  @ApiProperty() has_attachments: boolean;
  @ApiProperty({ enum: DIRECTIONS }) last_message_direction: string;
  @ApiProperty({ type: [EmailAddressDto] }) participants: EmailAddressDto[];
  @ApiProperty({ type: [MailboxDto], description: 'Every mailbox of the company that captured the thread.' }) mailboxes: MailboxDto[];
  @ApiProperty({ type: [AccountDto] }) accounts: AccountDto[];
}

export class AttachmentDto {
  @ApiProperty() filename: string;
  @ApiProperty() mime_type: string;
  @ApiProperty({ type: 'integer' }) size_bytes: number;
}

export class EmailMessageDto {
  @ApiProperty({ pattern: '^emsg_' }) id: string;
  @ApiProperty({ enum: ['email_message'] }) object: string;
  @ApiProperty({ pattern: '^eml_' }) conversation_id: string;
  @ApiProperty(DATE_TIME) sent_at: string;
  @ApiProperty({ enum: DIRECTIONS }) direction: string;
  @ApiProperty() subject: string;
  @ApiProperty() snippet: string;
  @ApiProperty({ description: 'Plain text.' }) body_text: string;
  @ApiProperty({ type: EmailAddressDto }) from: EmailAddressDto;
  @ApiProperty({ type: [EmailAddressDto] }) to: EmailAddressDto[];
  @ApiProperty({ type: [EmailAddressDto] }) cc: EmailAddressDto[];
  @ApiProperty({ type: [AttachmentDto], description: 'Metadata only; attachment content is never served.' }) attachments: AttachmentDto[];
}

export const EmailConversationEnvelope = SingleEnvelope(EmailConversationDto, 'EmailConversationEnvelope');
export const EmailConversationListEnvelope = PageEnvelope(EmailConversationDto, 'EmailConversationListEnvelope');
export const EmailMessageListEnvelope = PageEnvelope(EmailMessageDto, 'EmailMessageListEnvelope');
