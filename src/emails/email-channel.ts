import { COLLECTION_SCOPES } from '../contract/scopes';
import { conversationChannel } from '../conversations/conversation-channel';
import { EmailConversationEnvelope, EmailConversationListEnvelope, EmailMessageEnvelope, EmailMessageListEnvelope } from './email.dto';
import * as presenters from './email.presenter';
import { presentEmailConversation, presentEmailMessage } from './email.presenter';
import { EMAIL_TABLES } from './email.sql';

/** Email conversations, the one descriptor of the channel: `GET /v1/emails`, `/v1/emails/{email_id}`, its messages and one message. */
export const EMAIL_CHANNEL = conversationChannel({
  idKind: 'emailConversation',
  path: 'v1/emails',
  idParam: 'email_id',
  messageIdKind: 'emailMessage',
  tag: 'Emails',
  operationNoun: 'Email',
  noun: 'email conversation',
  scope: COLLECTION_SCOPES.email.read,
  contentScope: COLLECTION_SCOPES.email.content,
  contentPolicy: 'email_content',
  schemas: {
    single: EmailConversationEnvelope,
    list: EmailConversationListEnvelope,
    messages: EmailMessageListEnvelope,
    message: EmailMessageEnvelope,
  },
  tables: EMAIL_TABLES,
  present: presentEmailConversation,
  presentMessage: presentEmailMessage,
  presenters,
});
