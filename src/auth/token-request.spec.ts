import { ApiError } from '../common/errors/api-error';
import { readTokenRequest } from './token-request';

const basic = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;

function failure(run: () => unknown): { code: string; headers: Record<string, string> } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, headers: error.headers };
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('readTokenRequest', () => {
  const grant = { grant_type: 'client_credentials' };

  it('reads body credentials and the scope list', () => {
    expect(readTokenRequest({ ...grant, client_id: 'cli_a', client_secret: 's', scope: 'calls.read  meetings.read' }, undefined)).toEqual({
      clientId: 'cli_a',
      clientSecret: 's',
      basic: false,
      scope: ['calls.read', 'meetings.read'],
    });
  });

  it('form-decodes the Basic user and password after base64 (RFC 6749 §2.3.1)', () => {
    const request = readTokenRequest(grant, basic('cli%5Fa:p%3Ass+w%2Bd%25'));
    expect(request).toEqual({ clientId: 'cli_a', clientSecret: 'p:ss w+d%', basic: true, scope: undefined });
  });

  it('splits Basic at the first colon only', () => {
    expect(readTokenRequest(grant, basic('cli_a:x:y')).clientSecret).toBe('x:y');
  });

  it('treats parameters without a value as omitted (RFC 6749 §3.2)', () => {
    expect(readTokenRequest({ ...grant, client_id: '', client_secret: '' }, basic('a:b')).clientId).toBe('a');
  });


  it.each([
    ['no grant_type', {}, undefined, 'INVALID_REQUEST'],
    ['another grant', { grant_type: 'authorization_code' }, undefined, 'UNSUPPORTED_GRANT_TYPE'],
    ['a repeated parameter', { ...grant, client_id: ['a', 'b'], client_secret: 'x' }, undefined, 'INVALID_REQUEST'],
    ['Basic plus a body secret', { ...grant, client_secret: 'x' }, basic('a:b'), 'INVALID_REQUEST'],
    ['Basic plus a different body client_id', { ...grant, client_id: 'other' }, basic('a:b'), 'INVALID_REQUEST'],
    ['no credentials', grant, undefined, 'INVALID_CLIENT'],
    ['a client_id without secret', { ...grant, client_id: 'a' }, undefined, 'INVALID_CLIENT'],
    ['Basic without a colon', grant, basic('nocolon'), 'INVALID_CLIENT'],
    ['Basic that is not base64', grant, 'Basic ***', 'INVALID_CLIENT'],
    ['Basic with a bad percent-escape', grant, basic('cli_a:%E0%A4%A'), 'INVALID_CLIENT'],
    ['another scheme', grant, 'Bearer abc', 'INVALID_CLIENT'],
    ['an empty scope (a scope is one or more names, RFC 6749 §3.3)', { ...grant, client_id: 'a', client_secret: 'b', scope: '' }, undefined, 'INVALID_SCOPE'],
    ['a scope of spaces only', { ...grant, client_id: 'a', client_secret: 'b', scope: '   ' }, undefined, 'INVALID_SCOPE'],
  ])('refuses %s', (_case, body, authorization, code) => {
    expect(failure(() => readTokenRequest(body, authorization)).code).toBe(code);
  });

  it('challenges with Basic only when the client tried the Authorization header', () => {
    expect(failure(() => readTokenRequest(grant, basic('nocolon'))).headers['WWW-Authenticate']).toMatch(/^Basic realm=/);
    expect(failure(() => readTokenRequest(grant, undefined)).headers['WWW-Authenticate']).toBeUndefined();
  });
});
