import { conversationsController } from '../conversations/conversations.controller';
import { EMAIL_CHANNEL } from './email-channel';

/** `GET /v1/emails`, `GET /v1/emails/{email_id}`, `GET /v1/emails/{email_id}/messages`, `GET /v1/emails/{email_id}/messages/{message_id}`. */
export const EmailsController = conversationsController(EMAIL_CHANNEL);
