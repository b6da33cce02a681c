import { ExecutionContext, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { TokenController } from '../auth/token.controller';
import { ChangesController } from '../changes/changes.controller';
import { ChatController } from '../chat/chat.controller';
import { ContextController } from '../context/context.controller';
import { EmailsController } from '../emails/emails.controller';
import { HealthController } from '../health/health.controller';
import { CallsController, MeetingsController } from '../recordings/recordings.controller';
import { routePolicies } from './route-policies';

describe('route rate-limit policies', () => {
  const reflector = new Reflector();
  const policiesOf = (controller: Type, handler: string, query: Record<string, string> = {}) =>
    routePolicies(reflector, {
      getHandler: () => (controller.prototype as Record<string, () => unknown>)[handler],
      getClass: () => controller,
      switchToHttp: () => ({ getRequest: () => ({ query }) }),
    } as unknown as ExecutionContext);

  it('governs the email messages routes by client, company and email_content, the chat messages routes by client, company and chat_content', () => {
    for (const handler of ['messages', 'message']) {
      expect(policiesOf(EmailsController, handler)).toEqual(['client', 'company', 'email_content']);
      expect(policiesOf(ChatController, handler)).toEqual(['client', 'company', 'chat_content']);
    }
  });

  it('adds the content policy to a conversation list or detail asked for include=messages, and nothing for another include', () => {
    for (const handler of ['list', 'get']) {
      expect(policiesOf(EmailsController, handler, { include: 'messages' })).toEqual(['client', 'company', 'email_content']);
      expect(policiesOf(ChatController, handler, { include: 'messages' })).toEqual(['client', 'company', 'chat_content']);
      expect(policiesOf(ChatController, handler, { include: 'nothing' })).toEqual(['client', 'company']);
      expect(policiesOf(MeetingsController, handler, { include: 'messages' })).toEqual(['client', 'company']);
    }
  });

  it('governs every other /v1 route by client and company', () => {
    for (const controller of [EmailsController, ChatController]) {
      for (const handler of ['list', 'get']) expect(policiesOf(controller, handler)).toEqual(['client', 'company']);
    }
    for (const controller of [MeetingsController, CallsController]) {
      for (const handler of ['list', 'get', 'answers', 'transcript', 'overallEvaluation'])
        expect(policiesOf(controller, handler)).toEqual(['client', 'company']);
    }
    expect(policiesOf(ContextController, 'get')).toEqual(['client', 'company']);
    expect(policiesOf(ChangesController, 'list')).toEqual(['client', 'company']);
  });

  it('leaves no route of a controller above out of these sets', () => {
    const handlers = (controller: Type) => Object.getOwnPropertyNames(controller.prototype).filter((name) => name !== 'constructor');
    for (const controller of [EmailsController, ChatController])
      expect(handlers(controller).sort()).toEqual(['get', 'list', 'message', 'messages']);
    for (const controller of [MeetingsController, CallsController])
      expect(handlers(controller).sort()).toEqual(['answers', 'get', 'list', 'overallEvaluation', 'transcript']);
    expect(handlers(ContextController)).toEqual(['get']);
  });

  it('governs the token endpoint by the token policy alone, and never the probes', () => {
    expect(policiesOf(TokenController, 'issue')).toEqual(['token']);
    expect(policiesOf(HealthController, 'live')).toEqual([]);
    expect(policiesOf(HealthController, 'ready')).toEqual([]);
  });
});
