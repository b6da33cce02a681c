import SwaggerParser from '@apidevtools/swagger-parser';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { ALL_SCOPES } from '../../src/auth/scopes';
import { ERROR_CODE_NAMES } from '../../src/common/errors/error-codes';
import { createTestApp } from '../support/test-app';

describe('interface description', () => {
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    app = await createTestApp();
    http = request(app.getHttpServer());
  });
  afterAll(() => app.close());

  it('GET /openapi.json is a valid OpenAPI 3 document declaring version 0.1.0', async () => {
    const res = await http.get('/openapi.json').expect(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.info.version).toBe('0.1.0');
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeDefined();
  });

  it('declares the oauth2 client-credentials scheme with every scope', async () => {
    const { body } = await http.get('/openapi.json').expect(200);
    const flow = body.components.securitySchemes.oauth2.flows.clientCredentials;
    expect(flow.tokenUrl).toBe('/oauth/token');
    expect(Object.keys(flow.scopes).sort()).toEqual([...ALL_SCOPES].sort());
  });

  it('describes the error envelope with every stable code', async () => {
    const { body } = await http.get('/openapi.json').expect(200);
    const envelope = body.components.schemas.ErrorEnvelope;
    expect(envelope.required).toContain('error');
    const errorBody = body.components.schemas.ErrorBody;
    expect(errorBody.required.sort()).toEqual(['code', 'detail', 'request_id', 'title', 'type']);
    expect(errorBody.properties.code.enum.sort()).toEqual([...ERROR_CODE_NAMES].sort());
    expect(body.components.schemas.OAuthErrorBody.required.sort()).toEqual(['error', 'error_description']);
  });

  it('documents the ten meetings and calls routes with their scopes, parameters and error responses', async () => {
    const { body } = await http.get('/openapi.json').expect(200);
    for (const [collection, scope, id] of [
      ['meetings', 'meetings.read', 'meeting_id'],
      ['calls', 'calls.read', 'call_id'],
    ]) {
      const list = body.paths[`/v1/${collection}`].get;
      expect(list.security).toEqual([{ oauth2: [scope] }]);
      expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
        [
          'audience',
          'created_after',
          'created_before',
          'cursor',
          'has_transcript',
          'limit',
          'meeting_after',
          'meeting_before',
          'owner_email',
          'type',
        ].sort(),
      );
      expect(Object.keys(list.responses).sort()).toEqual(['200', '400', '401', '403', '429', '503']);
      expect(list['x-rate-limit-policies']).toEqual(['client', 'company']);
      for (const suffix of ['', '/evaluations/overall', '/answers', '/transcript']) {
        const op = body.paths[`/v1/${collection}/{${id}}${suffix}`].get;
        expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([`path:${id}`]);
        expect(op.security).toEqual([{ oauth2: suffix === '/transcript' ? [scope, 'transcriptions.read'] : [scope] }]);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '429', '503']));
      }
    }
  });

  it('documents the six email and chat routes with their scopes, parameters, errors and rate-limit policies', async () => {
    const { body } = await http.get('/openapi.json').expect(200);
    for (const [collection, scope, content, id, policy] of [
      ['emails', 'emails.read', 'emails.content.read', 'email_id', 'email_content'],
      ['chat', 'chat.read', 'chat.content.read', 'chat_id', 'chat_content'],
    ]) {
      const list = body.paths[`/v1/${collection}`].get;
      expect(list.security).toEqual([{ oauth2: [scope] }]);
      expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
        'cursor',
        'last_message_after',
        'last_message_before',
        'limit',
      ]);
      expect(Object.keys(list.responses).sort()).toEqual(['200', '400', '401', '403', '429', '503']);
      expect(list['x-rate-limit-policies']).toEqual(['client', 'company']);
      const single = body.paths[`/v1/${collection}/{${id}}`].get;
      expect(single.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([`path:${id}`]);
      expect(single.security).toEqual([{ oauth2: [scope] }]);
      expect(Object.keys(single.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '503']));
      const messages = body.paths[`/v1/${collection}/{${id}}/messages`].get;
      expect(messages.security).toEqual([{ oauth2: [scope, content] }]);
      expect(messages.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual(
        [`path:${id}`, 'query:cursor', 'query:limit'].sort(),
      );
      expect(Object.keys(messages.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '503']));
      expect(messages['x-rate-limit-policies']).toEqual(['client', 'company', policy]);
    }
  });

  it('documents rate limiting on every operation: its policies, the RateLimit headers, and a 429 with Retry-After in its error shape', async () => {
    const { body } = await http.get('/openapi.json').expect(200);
    let operations = 0;
    type Response = { headers: Record<string, unknown>; content: Record<string, { schema: { $ref: string } }> };
    type Operation = { 'x-rate-limit-policies': string[]; responses: Record<string, Response> };
    for (const [path, item] of Object.entries<Record<string, Operation>>(body.paths)) {
      for (const operation of Object.values(item)) {
        operations++;
        expect(operation['x-rate-limit-policies']).toEqual(
          expect.arrayContaining(path === '/oauth/token' ? ['token'] : ['client', 'company']),
        );
        expect(Object.keys(operation.responses['200'].headers).sort()).toEqual(['RateLimit', 'RateLimit-Policy']);
        const tooMany = operation.responses['429'];
        expect(Object.keys(tooMany.headers).sort()).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After']);
        expect(tooMany.content['application/json'].schema.$ref).toBe(
          path === '/oauth/token' ? '#/components/schemas/OAuthErrorBody' : '#/components/schemas/ErrorEnvelope',
        );
      }
    }
    expect(operations).toBe(18);
  });

  it('leaves the probes out of the API description', async () => {
    const { body } = await http.get('/openapi.json').expect(200);
    expect(Object.keys(body.paths).some((p) => p.startsWith('/health'))).toBe(false);
  });

  it('serves human docs at GET /docs', async () => {
    const res = await http.get('/docs').redirects(1);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/swagger-ui/i);
  });
});
