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
