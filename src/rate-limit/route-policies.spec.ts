import { ExecutionContext, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { TokenController } from '../auth/token.controller';
import { ChangesController } from '../changes/changes.controller';
import { ChatController } from '../chat/chat.controller';
import { ContextController } from '../context/context.controller';
import { EmailsController } from '../emails/emails.controller';
import { HealthController } from '../health/health.controller';
import { CallsController, MeetingsController } from '../recordings/recordings.controller';
import { INCLUDE_COSTS } from '../contract/route-metadata';
import { routeCost, routePolicies } from './route-policies';

describe('route rate-limit policies', () => {
  const reflector = new Reflector();
  const contextOf = (controller: Type, handler: string, query: Record<string, string>) =>
    ({
      getHandler: () => (controller.prototype as Record<string, () => unknown>)[handler],
      getClass: () => controller,
      switchToHttp: () => ({ getRequest: () => ({ query }) }),
    }) as unknown as ExecutionContext;
  const policiesOf = (controller: Type, handler: string, query: Record<string, string> = {}) =>
    routePolicies(reflector, contextOf(controller, handler, query));
  const costOf = (controller: Type, handler: string, include: string | undefined, policy: 'client' | 'company' | 'chat_content') =>
    routeCost(reflector, contextOf(controller, handler, include === undefined ? {} : { include }), policy);

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
      for (const handler of ['list', 'get', 'answers', 'transcript', 'captions', 'overallEvaluation'])
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
      expect(handlers(controller).sort()).toEqual(['answers', 'captions', 'get', 'list', 'overallEvaluation', 'transcript']);
    expect(handlers(ContextController)).toEqual(['get']);
  });

  it('governs the token endpoint by the token policy alone, and never the probes', () => {
    expect(policiesOf(TokenController, 'issue')).toEqual(['token']);
    expect(policiesOf(HealthController, 'live')).toEqual([]);
    expect(policiesOf(HealthController, 'ready')).toEqual([]);
  });

  it('costs the base policies 1 unit plus the units of each include part the list and detail routes name, once each; nothing else costs more', () => {
    for (const controller of [MeetingsController, CallsController]) {
      for (const handler of ['list', 'get']) {
        expect(costOf(controller, handler, undefined, 'client')).toBe(1);
        expect(costOf(controller, handler, 'transcript', 'company')).toBe(11);
        expect(costOf(controller, handler, 'evaluation,answers', 'client')).toBe(5);
        expect(costOf(controller, handler, 'answers,evaluation,transcript', 'company')).toBe(15);
        expect(costOf(controller, handler, 'transcript,transcript', 'company')).toBe(11);
        expect(costOf(controller, handler, 'messages', 'company')).toBe(1);
      }
      expect(costOf(controller, 'transcript', 'transcript', 'client')).toBe(1);
      expect(costOf(controller, 'captions', 'transcript', 'client')).toBe(1);
    }
    for (const controller of [EmailsController, ChatController]) {
      for (const handler of ['list', 'get']) {
        expect(costOf(controller, handler, 'messages', 'client')).toBe(11);
        expect(costOf(controller, handler, 'messages', 'chat_content')).toBe(1);
        expect(costOf(controller, handler, 'constructor', 'client')).toBe(1);
      }
      expect(costOf(controller, 'messages', 'messages', 'client')).toBe(1);
    }
  });

  it("computes a request's cost once, for whichever guard asks first, and answers the others from it", () => {
    const context = contextOf(MeetingsController, 'get', { include: 'transcript' });
    const request = context.switchToHttp().getRequest();
    const once = { ...context, switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
    const read = jest.spyOn(reflector, 'getAllAndOverride');
    const costs = (['client', 'company', 'client'] as const).map((policy) => routeCost(reflector, once, policy));
    expect(costs).toEqual([costs[0], costs[0], costs[0]]);
    expect(costs[0]).toBeGreaterThan(1);
    expect(read.mock.calls.filter(([key]) => key === INCLUDE_COSTS)).toHaveLength(1);
    read.mockRestore();
  });
});
