import { CHAT_CHANNEL } from '../chat/chat-channel';
import { EMAIL_CHANNEL } from '../emails/email-channel';

describe('conversation channels', () => {
  it('bind their cursors to the routes they always did: a cursor a client holds outlives a deploy', () => {
    expect([EMAIL_CHANNEL, CHAT_CHANNEL].map((c) => [c.listRoute, c.messagesRoute])).toEqual([
      ['GET /v1/emails', 'GET /v1/emails/{email_id}/messages'],
      ['GET /v1/chat', 'GET /v1/chat/{chat_id}/messages'],
    ]);
  });
});
