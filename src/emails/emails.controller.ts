import { ID_PREFIX } from '../common/ids/public-id';
import { conversationsController } from '../conversations/conversations.controller';
import { EmailConversationEnvelope, EmailConversationListEnvelope, EmailMessageListEnvelope } from './email.dto';
import { EmailsService } from './emails.service';

/** `GET /v1/emails`, `GET /v1/emails/{email_id}`, `GET /v1/emails/{email_id}/messages`. */
export const EmailsController = conversationsController({
  tag: 'Emails',
  operationNoun: 'Email',
  path: 'v1/emails',
  idParam: 'email_id',
  idPrefix: ID_PREFIX.emailConversation,
  noun: 'email conversation',
  scope: 'emails.read',
  contentScope: 'emails.content.read',
  contentPolicy: 'email_content',
  service: EmailsService,
  schemas: { single: EmailConversationEnvelope, list: EmailConversationListEnvelope, messages: EmailMessageListEnvelope },
});
