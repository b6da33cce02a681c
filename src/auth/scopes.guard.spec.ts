import { Controller, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ClsService } from 'nestjs-cls';
import { caught, httpContext } from '../../test/support/execution-context';
import { ApiError } from '../common/errors/api-error';
import { Principal } from '../common/http/request-context';
import { Authenticated, Public } from './auth.decorators';
import { ScopesGuard } from './scopes.guard';

@Authenticated('emails.read')
@Controller()
class EmailRoutes {
  /** The controller's scope alone. */
  list(): void {}

  /** The handler's scopes override the controller's. */
  @Authenticated('emails.read', 'emails.content.read')
  messages(): void {}
}

@Controller()
class OtherRoutes {
  @Authenticated('meetings.read', 'transcriptions.read')
  transcript(): void {}

  @Authenticated()
  context(): void {}

  @Public()
  health(): void {}

  undeclared(): void {}
}

const principal = (scopes: string[]): Principal => ({
  companyId: '42',
  companyPublicId: 'cmp_0123456789abcdefghijkl',
  companyName: 'Empresa',
  clientId: 'cli_0123456789abcdefghijkl',
  clientName: 'Integração',
  scopes,
});

/** The guard with the real Reflector over decorated routes, and a CLS that is a map. */
describe('ScopesGuard', () => {
  const guardWith = (caller: Principal | undefined) => {
    const store = new Map<string, unknown>(caller ? [['principal', caller]] : []);
    return new ScopesGuard(new Reflector(), { get: (key: string) => store.get(key) } as unknown as ClsService);
  };

  const refusal = async (caller: Principal | undefined, controller: Type, handler: string) => {
    const { context } = httpContext(controller, handler);
    const error = await caught(() => guardWith(caller).canActivate(context));
    expect(error).toBeInstanceOf(ApiError);
    const e = error as ApiError;
    return { status: e.status, code: e.code, challenge: e.headers['WWW-Authenticate'], detail: e.detail };
  };

  describe('allows', () => {
    it.each([
      ['the scope of the controller', ['emails.read'], EmailRoutes, 'list'],
      ['every scope of the handler', ['emails.read', 'emails.content.read'], EmailRoutes, 'messages'],
      ['every scope, among others', ['chat.read', 'transcriptions.read', 'meetings.read'], OtherRoutes, 'transcript'],
    ] as const)('a token that carries %s', (_name, scopes, controller, handler) => {
      const { context } = httpContext(controller, handler);
      expect(guardWith(principal([...scopes])).canActivate(context)).toBe(true);
    });

    it.each(['context', 'health', 'undeclared'] as const)('a route that declares no scope (%s), whoever calls, or nobody', (handler) => {
      const { context } = httpContext(OtherRoutes, handler);
      expect(guardWith(principal([])).canActivate(context)).toBe(true);
      expect(guardWith(undefined).canActivate(context)).toBe(true);
    });
  });

  describe('refuses', () => {
    it('a token without one of the scopes: 403 INSUFFICIENT_SCOPE, the challenge naming every scope the route needs', async () => {
      expect(await refusal(principal(['emails.read']), EmailRoutes, 'messages')).toEqual({
        status: 403,
        code: 'INSUFFICIENT_SCOPE',
        challenge: 'Bearer realm="conversation-read-api", error="insufficient_scope", scope="emails.read emails.content.read"',
        detail: 'This route needs the scopes: emails.read emails.content.read.',
      });
      expect(await refusal(principal(['transcriptions.read', 'calls.read']), OtherRoutes, 'transcript')).toMatchObject({
        status: 403,
        code: 'INSUFFICIENT_SCOPE',
        challenge: 'Bearer realm="conversation-read-api", error="insufficient_scope", scope="meetings.read transcriptions.read"',
      });
    });

    it('a token with no scope at all, on a route of the controller scope', async () => {
      expect(await refusal(principal([]), EmailRoutes, 'list')).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    });

    it('a scope is matched whole, not as a prefix', async () => {
      expect(await refusal(principal(['emails.read.extra', 'emails']), EmailRoutes, 'list')).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    });

    it('no caller on a route that needs a scope: 401 MISSING_ACCESS_TOKEN (it fails closed)', async () => {
      expect(await refusal(undefined, EmailRoutes, 'list')).toMatchObject({
        status: 401,
        code: 'MISSING_ACCESS_TOKEN',
        challenge: 'Bearer realm="conversation-read-api"',
      });
    });
  });
});
