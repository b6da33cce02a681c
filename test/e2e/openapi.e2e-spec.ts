import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { DataSource } from 'typeorm';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { ALL_SCOPES } from '../../src/contract/scopes';
import { ERROR_CODE_NAMES } from '../../src/common/errors/error-codes';
import { loadConfig } from '../../src/config/app-config';
import { DemoSeeder } from '../../src/seeding/demo-seeder';
import { tokenFor } from '../support/credentials';
import { createTestApp, ownerDataSource } from '../support/test-app';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('interface description', () => {
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    app = await createTestApp();
    http = request(app.getHttpServer());
  });
  afterAll(() => app.close());

  it('GET /openapi.json is a valid OpenAPI 3.1 document declaring version 0.1.0', async () => {
    const res = await http.get('/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('0.1.0');
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeDefined();
  });

  it('declares the oauth2 client-credentials scheme with every scope', async () => {
    const { body } = await http.get('/openapi.json').expect(200);
    const flow = body.components.securitySchemes.oauth2.flows.clientCredentials;
    expect(flow.tokenUrl).toBe('http://localhost:3000/oauth/token');
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

  it('documents the twelve meetings and calls routes with their scopes, parameters and error responses', async () => {
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
          'ids',
          'include',
          'limit',
          'meeting_after',
          'meeting_before',
          'owner_email',
          'type',
        ].sort(),
      );
      expect(Object.keys(list.responses).sort()).toEqual(['200', '400', '401', '403', '429', '503']);
      expect(list['x-rate-limit-policies']).toEqual(['client', 'company']);
      for (const suffix of ['', '/evaluations/overall', '/answers', '/transcript', '/transcript/captions']) {
        const op = body.paths[`/v1/${collection}/{${id}}${suffix}`].get;
        expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(
          suffix === ''
            ? [`path:${id}`, 'query:include']
            : suffix === '/transcript/captions'
              ? [`path:${id}`, 'query:format']
              : [`path:${id}`],
        );
        expect(op.security).toEqual([{ oauth2: suffix.startsWith('/transcript') ? [scope, 'transcriptions.read'] : [scope] }]);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '429', '503']));
      }
    }
  });

  it('documents the eight email and chat routes with their scopes, parameters, errors and rate-limit policies', async () => {
    const { body } = await http.get('/openapi.json').expect(200);
    for (const [collection, scope, content, id, policy] of [
      ['emails', 'emails.read', 'emails.content.read', 'email_id', 'email_content'],
      ['chat', 'chat.read', 'chat.content.read', 'chat_id', 'chat_content'],
    ]) {
      const list = body.paths[`/v1/${collection}`].get;
      expect(list.security).toEqual([{ oauth2: [scope] }]);
      expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
        'cursor',
        'ids',
        'include',
        'last_message_after',
        'last_message_before',
        'limit',
      ]);
      expect(Object.keys(list.responses).sort()).toEqual(['200', '400', '401', '403', '429', '503']);
      expect(list['x-rate-limit-policies']).toEqual(['client', 'company']);
      const single = body.paths[`/v1/${collection}/{${id}}`].get;
      expect(single.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([`path:${id}`, 'query:include']);
      expect(single.security).toEqual([{ oauth2: [scope] }]);
      expect(Object.keys(single.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '503']));
      const messages = body.paths[`/v1/${collection}/{${id}}/messages`].get;
      expect(messages.security).toEqual([{ oauth2: [scope, content] }]);
      expect(messages.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual(
        [`path:${id}`, 'query:cursor', 'query:ids', 'query:limit'].sort(),
      );
      expect(Object.keys(messages.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '503']));
      expect(messages['x-rate-limit-policies']).toEqual(['client', 'company', policy]);
      const message = body.paths[`/v1/${collection}/{${id}}/messages/{message_id}`].get;
      expect(message.security).toEqual([{ oauth2: [scope, content] }]);
      expect(message.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([`path:${id}`, 'path:message_id']);
      expect(Object.keys(message.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '503']);
      expect(Object.keys(message.responses).sort()).toEqual(Object.keys(single.responses).sort());
      expect(message['x-rate-limit-policies']).toEqual(['client', 'company', policy]);
      expect(message.tags).toEqual(messages.tags);
      // The same message schema as the list's items, in the single-object envelope.
      const item = (ref: string) => body.components.schemas[ref.split('/').pop()!];
      const listItems = item(messages.responses['200'].content['application/json'].schema.$ref).properties.data.items.$ref;
      const envelope = item(message.responses['200'].content['application/json'].schema.$ref);
      expect(envelope.properties.data.$ref).toBe(listItems);
      expect(Object.keys(envelope.properties).sort()).toEqual(['data', 'request_id']);
    }
  });

  /** Every answer may be compressed when the request accepts it: Vary always, Content-Encoding when it is. */
  const COMPRESSION = ['Content-Encoding', 'Vary'];

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
        // The success answer: 200, or the webhook routes' 201, 202 and 204.
        const success = Object.keys(operation.responses).find((status) => /^2/.test(status))!;
        expect(Object.keys(operation.responses[success].headers).sort()).toEqual(
          [
            'Cache-Control',
            'Pragma',
            'RateLimit',
            'RateLimit-Policy',
            'X-Content-Type-Options',
            'X-Request-Id',
            ...COMPRESSION,
            ...(path === '/v1/export' ? ['Feed-Cursor'] : []),
            ...(path === '/v1/webhook-endpoints' && success === '201' ? ['Idempotent-Replayed', 'Location'] : []),
          ].sort(),
        );
        const tooMany = operation.responses['429'];
        expect(Object.keys(tooMany.headers).sort()).toEqual(
          [
            'Cache-Control',
            'Pragma',
            'RateLimit',
            'RateLimit-Policy',
            'Retry-After',
            'X-Content-Type-Options',
            'X-Request-Id',
            ...COMPRESSION,
          ].sort(),
        );
        expect(tooMany.content['application/json'].schema.$ref).toBe(
          path === '/oauth/token' ? '#/components/schemas/OAuthErrorBody' : '#/components/schemas/ErrorEnvelope',
        );
      }
    }
    expect(operations).toBe(Object.keys(OPERATION_IDS).length);
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

  it('serves /docs under a strict Content-Security-Policy its page keeps to (no inline script), and nosniff', async () => {
    const res = await http.get('/docs/').expect(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    // Every script of the page is a file of its own, so script-src 'self' lets it run.
    const scripts = [...res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\.\/[^"]+\.js"/);
      expect(body.trim()).toBe('');
    }
    await http.get('/docs/swagger-ui-init.js').expect(200);
  });

  it.each(['/health/live', '/openapi.json', '/v1/context', '/nowhere'])('sends X-Content-Type-Options: nosniff on %s', async (path) => {
    const res = await http.get(path);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

/** The spec's nullable fields, schema by schema: exactly these accept `null`, nothing else does. */
const NULLABLE: Record<string, string[]> = {
  PaginationDto: ['next_cursor'],
  MeetingDto: ['template', 'enablement'],
  CallDto: ['template', 'enablement'],
  OwnerDto: ['team'],
  EnablementDto: ['next_steps', 'meeting_type'],
  SpeakingDurationDto: ['others_seconds'],
  UserRefDto: ['email'],
  AccountDto: ['cnpj'],
  EvaluationSummaryDto: ['justification'],
  SkillScoreDto: ['justification'],
  BotHistoryEntryDto: ['code', 'subcode'],
  OverallEvaluationDto: ['id', 'score', 'justification', 'created_at', 'updated_at'],
  TranscriptDto: ['variant', 'created_at', 'updated_at'],
  UtteranceDto: ['speaker'],
  EmailAddressDto: ['name'],
  MailboxDto: ['owner'],
  ChatContactDto: ['phone'],
  ChatConversationDto: ['deleted_at', 'deleted_reason'],
  ChatMessageDto: ['text', 'media', 'transcription', 'edited_at', 'deleted_at', 'deleted_reason'],
  ChatMediaDto: ['file_name'],
  // EXTENSIONS (Bulk): null when every message of the conversation is embedded.
  EmailIncludedDto: ['messages_next_cursor'],
  ChatIncludedDto: ['messages_next_cursor'],
  ChangeDto: ['parent_id'],
  AuditEventDto: ['client', 'address', 'route'],
  AuditEventClientDto: ['name'],
  // A resumed export (`after=`) names no feed cursor: the first stream's is the one to follow.
  ExportTrailerDto: ['feed_cursor'],
  // EXTENSIONS ("Webhook endpoints through the API"): a description is optional; failing_since only while failing.
  CreateWebhookEndpointBody: ['description'],
  UpdateWebhookEndpointBody: ['description'],
  WebhookEndpointDto: ['description', 'failing_since'],
  CreatedWebhookEndpointDto: ['description', 'failing_since'],
  // Before a first attempt, or with none planned: no time, no answer, no error, no latency.
  WebhookDeliveryDto: ['last_attempt_at', 'next_attempt_at', 'last_response_status', 'last_error', 'latency_ms'],
};

/** Every operation by its stable id: what generated clients call their methods. */
const OPERATION_IDS: Record<string, string> = {
  'post /oauth/token': 'issueAccessToken',
  'get /v1/context': 'getContext',
  'get /v1/meetings': 'listMeetings',
  'get /v1/meetings/{meeting_id}': 'getMeeting',
  'get /v1/meetings/{meeting_id}/evaluations/overall': 'getMeetingOverallEvaluation',
  'get /v1/meetings/{meeting_id}/answers': 'listMeetingAnswers',
  'get /v1/meetings/{meeting_id}/transcript': 'getMeetingTranscript',
  'get /v1/meetings/{meeting_id}/transcript/captions': 'getMeetingTranscriptCaptions',
  'get /v1/calls': 'listCalls',
  'get /v1/calls/{call_id}': 'getCall',
  'get /v1/calls/{call_id}/evaluations/overall': 'getCallOverallEvaluation',
  'get /v1/calls/{call_id}/answers': 'listCallAnswers',
  'get /v1/calls/{call_id}/transcript': 'getCallTranscript',
  'get /v1/calls/{call_id}/transcript/captions': 'getCallTranscriptCaptions',
  'get /v1/emails': 'listEmails',
  'get /v1/emails/{email_id}': 'getEmail',
  'get /v1/emails/{email_id}/messages': 'listEmailMessages',
  'get /v1/emails/{email_id}/messages/{message_id}': 'getEmailMessage',
  'get /v1/export': 'exportRecords',
  'get /v1/chat': 'listChats',
  'get /v1/chat/{chat_id}': 'getChat',
  'get /v1/chat/{chat_id}/messages': 'listChatMessages',
  'get /v1/chat/{chat_id}/messages/{message_id}': 'getChatMessage',
  'get /v1/changes': 'listChanges',
  'get /v1/audit-events': 'listAuditEvents',
  'post /v1/webhook-endpoints': 'createWebhookEndpoint',
  'get /v1/webhook-endpoints': 'listWebhookEndpoints',
  'get /v1/webhook-endpoints/{endpoint_id}': 'getWebhookEndpoint',
  'patch /v1/webhook-endpoints/{endpoint_id}': 'updateWebhookEndpoint',
  'delete /v1/webhook-endpoints/{endpoint_id}': 'deleteWebhookEndpoint',
  'post /v1/webhook-endpoints/{endpoint_id}/rotate-secret': 'rotateWebhookEndpointSecret',
  'get /v1/webhook-endpoints/{endpoint_id}/deliveries': 'listWebhookDeliveries',
  'post /v1/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/retry': 'retryWebhookDelivery',
  'post /v1/webhook-endpoints/{endpoint_id}/test': 'testWebhookEndpoint',
  'post /v1/webhook-endpoints/{endpoint_id}/replay': 'replayWebhookEndpoint',
};

type Operation = { operationId: string; tags: string[]; responses: Record<string, { headers?: Record<string, { required?: boolean }> }> };

describe('interface description, exact enough for generated clients', () => {
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let document: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Json> }; [k: string]: unknown };
  let db: DataSource;

  beforeAll(async () => {
    [app, db] = await Promise.all([
      createTestApp({ env: { PUBLIC_BASE_URL: 'https://api.example.com/conversations/' } }),
      ownerDataSource(),
    ]);
    http = request(app.getHttpServer());
    document = (await http.get('/openapi.json').expect(200)).body;
  });
  afterAll(() => Promise.all([app.close(), db.destroy()]));

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ key: `${method} ${path}`, op })),
    );

  it('accepts null exactly where the spec says a field is nullable, and nowhere else', () => {
    const ajv = addFormats(new Ajv2020({ strict: false }));
    const local = (schema: unknown) => JSON.parse(JSON.stringify(schema).replace(/#\/components\/schemas\//g, 'doc#/$defs/'));
    ajv.addSchema({ $id: 'doc', $defs: local(document.components.schemas) });
    const acceptsNull = (schema: Json) => ajv.validate(local(schema), null);
    const found: Record<string, string[]> = {};
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      for (const [property, propertySchema] of Object.entries<Json>(schema.properties ?? {})) {
        if (acceptsNull(propertySchema)) (found[name] ??= []).push(property);
      }
    }
    for (const names of Object.values(found)) names.sort();
    expect(found).toEqual(Object.fromEntries(Object.entries(NULLABLE).map(([k, v]) => [k, [...v].sort()])));
    // Nullable enums list null among their values.
    expect(document.components.schemas.EnablementDto.properties.meeting_type.enum).toContain(null);
    expect(document.components.schemas.TranscriptDto.properties.variant.enum).toEqual(['enhanced', 'original', null]);
    expect(JSON.stringify(document)).not.toContain('"nullable"');
  });

  it('names its server and token URL from PUBLIC_BASE_URL', () => {
    expect(document.servers).toEqual([{ url: 'https://api.example.com/conversations' }]);
    const flow = (document.components as Json).securitySchemes.oauth2.flows.clientCredentials;
    expect(flow.tokenUrl).toBe('https://api.example.com/conversations/oauth/token');
  });

  it('gives every operation a stable operationId named for the API and one tag of its resource', () => {
    expect(Object.fromEntries(operations().map(({ key, op }) => [key, op.operationId]))).toEqual(OPERATION_IDS);
    const tags = (document.tags as Array<{ name: string; description: string }>).map((t) => t.name);
    expect(tags).toEqual([
      'Authentication',
      'Context',
      'Meetings',
      'Calls',
      'Emails',
      'Chat',
      'Changes',
      'Export',
      'Audit events',
      'Webhook endpoints',
    ]);
    for (const { key, op } of operations()) {
      expect([key, op.tags.length, tags.includes(op.tags[0])]).toEqual([key, 1, true]);
    }
  });

  // EXTENSIONS ("Transcripts as captions"): a second media type on an answer changes the types every
  // generated client makes of it (openapi-fetch's `string | {data: …}`, orval's renamed response
  // types), so each success answer of each operation has exactly one (generated-client.e2e-spec.ts
  // compiles a client generated with default options).
  it('gives every success answer of every operation exactly one media type', () => {
    const success = operations().flatMap(({ key, op }) =>
      Object.entries(op.responses as Record<string, { content?: Record<string, unknown> }>)
        .filter(([status]) => /^2/.test(status))
        .map(([status, response]) => [key, status, Object.keys(response.content ?? {})]),
    );
    // A 204 has no content, so no media type (DELETE /v1/webhook-endpoints/{endpoint_id}).
    expect(success.filter(([, status, types]) => types.length !== (status === '204' ? 0 : 1))).toEqual([]);
    expect(success).toHaveLength(Object.keys(OPERATION_IDS).length);
  });

  it('declares on every response the headers the API sends with it', () => {
    for (const { key, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        const headers = response.headers ?? {};
        const required = Object.entries(headers)
          .filter(([, h]) => h.required)
          .map(([n]) => n);
        expect([key, status, required]).toEqual([
          key,
          status,
          expect.arrayContaining(['X-Request-Id', 'Cache-Control', 'Pragma', 'RateLimit-Policy']),
        ]);
        if (status === '429') expect([key, headers['Retry-After']?.required]).toEqual([key, true]);
        if (status === '200') expect([key, headers.RateLimit?.required]).toEqual([key, true]);
        if (status === '401' && key !== 'post /oauth/token') expect([key, headers['WWW-Authenticate']?.required]).toEqual([key, true]);
      }
    }
    const responses = (document.components as Json).responses;
    expect(Object.keys(responses.MethodNotAllowed.headers)).toContain('Allow');
    expect(Object.keys(responses.TokenMethodNotAllowed.headers)).toContain('Allow');
  });

  it("lints with Redocly's recommended rules with no errors", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: '/openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it('generates a typed client with openapi-typescript that compiles, under tsc --strict, against real answers in every state', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conv-api-client-'));
    try {
      const demo = await DemoSeeder.over(db, loadConfig({ NODE_ENV: 'test' })).seed();
      const token = await tokenFor(http, { clientId: demo.client_id, clientSecret: demo.client_secret, scopes: [] });
      const get = async (url: string) => (await http.get(url).set('Authorization', `Bearer ${token}`).expect(200)).body;
      const meetings = await get('/v1/meetings?limit=100');
      const calls = await get('/v1/calls?limit=100');
      const emails = await get('/v1/emails?limit=100');
      const chats = await get('/v1/chat?limit=100');
      // Real answers of every route, in every state the demo data holds (nulls included).
      const answers: Array<[string, string, unknown]> = [
        ['/v1/context', 'getContext', await get('/v1/context')],
        ['/v1/meetings', 'listMeetings', meetings],
        ['/v1/calls', 'listCalls', calls],
        ['/v1/emails', 'listEmails', emails],
        ['/v1/chat', 'listChats', chats],
      ];
      for (const m of meetings.data) {
        answers.push(['/v1/meetings/{meeting_id}', 'getMeeting', await get(`/v1/meetings/${m.id}`)]);
        answers.push(['/v1/meetings/{meeting_id}/transcript', 'getMeetingTranscript', await get(`/v1/meetings/${m.id}/transcript`)]);
        answers.push([
          '/v1/meetings/{meeting_id}/evaluations/overall',
          'getMeetingOverallEvaluation',
          await get(`/v1/meetings/${m.id}/evaluations/overall`),
        ]);
        answers.push(['/v1/meetings/{meeting_id}/answers', 'listMeetingAnswers', await get(`/v1/meetings/${m.id}/answers`)]);
      }
      for (const [collection, id, channel, list] of [
        ['emails', 'email_id', 'Email', emails],
        ['chat', 'chat_id', 'Chat', chats],
      ]) {
        for (const c of list.data) {
          const page = await get(`/v1/${collection}/${c.id}/messages`);
          answers.push([`/v1/${collection}/{${id}}/messages`, `list${channel}Messages`, page]);
          // Every message by id too: every state (tombstones, edits, media) in the single-object envelope.
          for (const m of page.data)
            answers.push([
              `/v1/${collection}/{${id}}/messages/{message_id}`,
              `get${channel}Message`,
              await get(`/v1/${collection}/${c.id}/messages/${m.id}`),
            ]);
        }
      }
      const token200 = (
        await http
          .post('/oauth/token')
          .type('form')
          .send({ grant_type: 'client_credentials', client_id: demo.client_id, client_secret: demo.client_secret })
      ).body;

      await writeFile(join(dir, 'openapi.json'), JSON.stringify(document));
      await run(process.execPath, [
        join(__dirname, '../../node_modules/openapi-typescript/bin/cli.js'),
        join(dir, 'openapi.json'),
        '-o',
        join(dir, 'api.d.ts'),
      ]);
      const program = [
        `import type { components, operations, paths } from './api';`,
        `type Ok<P extends keyof paths> = paths[P]['get'] extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;`,
        `type Json<O extends keyof operations> = operations[O]['responses'] extends { 200: { content: { 'application/json': infer B } } } ? B : never;`,
        ...answers.map(
          ([path, operation, body], i) => `export const a${i}: Ok<'${path}'> & Json<'${operation}'> = ${JSON.stringify(body)};`,
        ),
        `export const issued: operations['issueAccessToken']['responses'][200]['content']['application/json'] = ${JSON.stringify(token200)};`,
        // A small program a client would write: the types guide it through every nullable field.
        `export function describeMeeting(m: components['schemas']['MeetingDto']): string {`,
        `  const template: string = m.template === null ? 'no template' : m.template.name;`,
        `  const team: string = m.owner.team?.name ?? 'no team';`,
        `  const kind: string = m.enablement?.meeting_type ?? 'unclassified';`,
        `  const next: string | null = m.enablement === null ? null : m.enablement.next_steps;`,
        `  return [m.id, template, team, kind, next ?? '', m.transcript.status, m.bot_history.length].join(' ');`,
        `}`,
        `export function describeMessage(m: components['schemas']['ChatMessageDto']): string {`,
        `  return m.deleted_at !== null ? 'deleted' : (m.text ?? m.media?.mime_type ?? m.transcription ?? '');`,
        `}`,
        `export function nextPage(p: components['schemas']['PaginationDto']): string | null { return p.has_more ? p.next_cursor : null; }`,
      ].join('\n');
      await writeFile(join(dir, 'program.ts'), program);
      const tsc = require.resolve('typescript/bin/tsc');
      await run(process.execPath, [
        tsc,
        '--strict',
        '--noEmit',
        '--target',
        'es2022',
        '--module',
        'commonjs',
        '--skipLibCheck',
        'false',
        join(dir, 'program.ts'),
      ]);

      // And a field typed too loosely would not show here: the same program must fail on a wrong null.
      await writeFile(
        join(dir, 'wrong.ts'),
        `import type { components } from './api';\nexport const m: components['schemas']['MeetingDto']['title'] = null;\n`,
      );
      await expect(run(process.execPath, [tsc, '--strict', '--noEmit', join(dir, 'wrong.ts')])).rejects.toThrow(/not assignable/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

/** Runs a program to its end; rejects with its output when it fails. */
function run(program: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(program, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${args.join(' ')}\n${stdout}${stderr}`)) : resolve(stdout),
    ),
  );
}
