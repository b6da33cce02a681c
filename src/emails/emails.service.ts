import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { RequestStore } from '../common/http/request-context';
import { CursorCodec } from '../common/cursors/cursor-codec';
import { ConversationsService } from '../conversations/conversations.service';
import { EmailConversationDto, EmailMessageDto } from './email.dto';
import { EMAIL_CHANNEL } from './email.presenter';
import { EmailConversationRow, EmailMessageRow, EmailsRepository } from './emails.repository';

/** Email conversations: list, retrieve, and messages behind `emails.content.read`. */
@Injectable()
export class EmailsService extends ConversationsService<EmailConversationRow, EmailMessageRow, EmailConversationDto, EmailMessageDto> {
  constructor(emails: EmailsRepository, codec: CursorCodec, cls: ClsService<RequestStore>) {
    super(emails, EMAIL_CHANNEL, codec, cls);
  }
}
