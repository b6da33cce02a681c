import { Reflector } from '@nestjs/core';
import { ChatController } from '../chat/chat.controller';
import { EmailsController } from '../emails/emails.controller';
import { CallsController, MeetingsController } from '../recordings/recordings.controller';
import { ROUTE_POLICIES } from './rate-limit-policies';

describe('route rate-limit policies', () => {
  const reflector = new Reflector();
  const policiesOf = (controller: { prototype: object }, handler: string) =>
    reflector.get(ROUTE_POLICIES, (controller.prototype as Record<string, () => unknown>)[handler]);

  it('marks the email messages route for email_content and the chat messages route for chat_content', () => {
    expect(policiesOf(EmailsController, 'messages')).toEqual(['email_content']);
    expect(policiesOf(ChatController, 'messages')).toEqual(['chat_content']);
  });

  it('marks no other route with an extra policy', () => {
    for (const controller of [EmailsController, ChatController]) {
      for (const handler of ['list', 'get']) expect(policiesOf(controller, handler)).toBeUndefined();
    }
    for (const controller of [MeetingsController, CallsController]) {
      for (const handler of ['list', 'get', 'answers', 'transcript', 'overallEvaluation'])
        expect(policiesOf(controller, handler)).toBeUndefined();
    }
  });
});
