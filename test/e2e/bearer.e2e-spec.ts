import { createHmac, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { BeforeApplicationShutdown, Module } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { thumbprint } from '../../src/auth/access-tokens';
import { Company } from '../../src/companies/company.entity';
import { clientsAdmin, createClient, TestClient, tokenFor } from '../support/credentials';
import { parseCidrList } from '../../src/clients/clients.service';
import { createCompany } from '../support/factories';
import { expectError } from '../support/http';
import { PipelineProbeModule } from '../support/pipeline-probe.module';
import { appBehindTrustedProxy, createTestApp, ownerDataSource, sleep, testSigningKey } from '../support/test-app';

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const newRsaKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('bearer authentication on /v1', () => {
  let owner: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let company: Company;
  let client: TestClient;
  let token: string;
  const kid = thumbprint(createPublicKey(testSigningKey()));

  beforeAll(async () => {
    [owner, app] = await Promise.all([ownerDataSource(), createTestApp({ extra: [PipelineProbeModule] })]);
    http = request(app.getHttpServer());
    company = await createCompany(owner);
    client = await createClient(owner, company, { scopes: ['meetings.read', 'transcriptions.read', 'calls.read'] });
    token = await tokenFor(http, client);
  });
  afterAll(() => Promise.all([owner.destroy(), app.close()]));

  const get = (path: string, bearer?: string) => {
    const req = http.get(path);
    return bearer === undefined ? req : req.set('Authorization', `Bearer ${bearer}`);
  };

  /** Claims of a valid token for `client`, to tamper with. */
  function validClaims(): Record<string, unknown> {
    return { ...(jwt.decode(token) as object) };
  }

  function sign(claims: Record<string, unknown>, header: Record<string, unknown> = {}, key = testSigningKey()): string {
    return jwt.sign(claims, key, { algorithm: 'RS256', header: { alg: 'RS256', typ: 'at+jwt', kid, ...header } as jwt.JwtHeader });
  }

  describe('missing or malformed token', () => {
    it('answers 401 MISSING_ACCESS_TOKEN with a bare Bearer challenge when no token is sent', async () => {
      const res = await get('/v1/context');
      expectError(res, 401, 'MISSING_ACCESS_TOKEN');
      expect(res.body.error.type).toBe('AuthenticationError');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="conversation-read-api"');
    });

    it('answers 401 MISSING_ACCESS_TOKEN for another scheme', async () => {
      expectError(await http.get('/v1/context').set('Authorization', 'Basic abc'), 401, 'MISSING_ACCESS_TOKEN');
    });

    it('never reads a token from the query string', async () => {
      const res = await http.get(`/v1/context?access_token=${token}`);
      expectError(res, 401, 'MISSING_ACCESS_TOKEN');
    });

    it.each([
      ['a malformed token', 'Bearer not.a.jwt'],
      ['an empty Bearer', 'Bearer '],
      ['a Bearer header with extra parts', `Bearer ${'x'} y`],
    ])('answers 401 INVALID_ACCESS_TOKEN with error="invalid_token" for %s', async (_case, authorization) => {
      const res = await http.get('/v1/context').set('Authorization', authorization);
      expectError(res, 401, 'INVALID_ACCESS_TOKEN');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="conversation-read-api", error="invalid_token"/);
    });
  });

  describe('JWT attacks, each 401 INVALID_ACCESS_TOKEN', () => {
    const attacks: Array<[string, () => string]> = [
      ['alg none', () => `${b64url({ alg: 'none', typ: 'at+jwt', kid })}.${b64url(validClaims())}.`],
      [
        'HS256 signed with the public key as the HMAC secret',
        () => {
          const pem = createPublicKey(testSigningKey()).export({ type: 'spki', format: 'pem' }).toString();
          const input = `${b64url({ alg: 'HS256', typ: 'at+jwt', kid })}.${b64url(validClaims())}`;
          return `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
        },
      ],
      ['a signature by another key under our kid', () => sign(validClaims(), {}, newRsaKey())],
      [
        'a tampered payload (scope widened) with the original signature',
        () => {
          const [h, , s] = token.split('.');
          return `${h}.${b64url({ ...validClaims(), scope: 'meetings.read calls.read emails.read emails.content.read' })}.${s}`;
        },
      ],
      ['a wrong issuer', () => sign({ ...validClaims(), iss: 'https://evil.example' })],
      ['a wrong audience', () => sign({ ...validClaims(), aud: 'another-api' })],
      ['typ JWT instead of at+jwt', () => sign(validClaims(), { typ: 'JWT' })],
      ['an unknown kid', () => sign(validClaims(), { kid: 'not-a-key-we-know' })],
      ['no kid', () => jwt.sign(validClaims(), testSigningKey(), { algorithm: 'RS256', header: { alg: 'RS256', typ: 'at+jwt' } })],
      [
        'an expired token',
        () => sign({ ...validClaims(), iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 60 }),
      ],
      [
        'no exp claim',
        () => {
          const { exp: _exp, ...rest } = validClaims();
          return sign(rest);
        },
      ],
      ['a credential version that is not current', () => sign({ ...validClaims(), ver: 2 })],
      ['a client id that does not exist', () => sign({ ...validClaims(), sub: 'cli_0123456789abcdefghijkl' })],
      ['a company claim that is not the client company', () => sign({ ...validClaims(), company: 'cmp_0123456789abcdefghijkl' })],
      ['an absurdly long token', () => 'x'.repeat(5000)],
      [
        'a token issued in the future (beyond the clock skew)',
        () => sign({ ...validClaims(), iat: Math.floor(Date.now() / 1000) + 120, exp: Math.floor(Date.now() / 1000) + 3600 }),
      ],
      [
        'a token whose lifetime exceeds the configured one',
        () => sign({ ...validClaims(), iat: Math.floor(Date.now() / 1000) - 10, exp: Math.floor(Date.now() / 1000) + 86_400 }),
      ],
    ];

    it('accepts the untampered token (the baseline of the attacks)', async () => {
      await get('/v1/context', token).expect(200);
      await get('/v1/context', sign(validClaims())).expect(200);
    });

    it.each(attacks)('rejects %s', async (_name, forge) => {
      const res = await get('/v1/context', forge());
      expectError(res, 401, 'INVALID_ACCESS_TOKEN');
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    });
  });

  describe('scopes removed from a client', () => {
    it('take effect on its tokens at once: a token keeps only the scopes its client still holds', async () => {
      const c = await createClient(owner, company, { scopes: ['meetings.read', 'calls.read'] });
      const issued = await tokenFor(http, c);
      await get('/v1/calls', issued).expect(200);
      await owner.query(`UPDATE api_clients SET scopes = ARRAY['meetings.read'] WHERE public_id = $1`, [c.clientId]);
      expectError(await get('/v1/calls', issued), 403, 'INSUFFICIENT_SCOPE');
      await get('/v1/meetings', issued).expect(200);
      expect((await get('/v1/context', issued).expect(200)).body.data.scopes).toEqual(['meetings.read']);
      // Added back, the token's own grant is all it can reach again: never more than it was issued with.
      await owner.query(`UPDATE api_clients SET scopes = ARRAY['meetings.read', 'calls.read', 'emails.read'] WHERE public_id = $1`, [
        c.clientId,
      ]);
      await get('/v1/calls', issued).expect(200);
      expectError(await get('/v1/emails', issued), 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('token lifetime and keys', () => {
    it('rejects a token once TOKEN_TTL_SECONDS have passed', async () => {
      const shortLived = await createTestApp({ env: { TOKEN_TTL_SECONDS: '1' } });
      try {
        const short = request(shortLived.getHttpServer());
        const t = await tokenFor(short, client);
        await short.get('/v1/context').set('Authorization', `Bearer ${t}`).expect(200);
        await sleep(4100); // 1 s lifetime + 2 s clock tolerance, on whole-second claims
        const res = await short.get('/v1/context').set('Authorization', `Bearer ${t}`);
        expectError(res, 401, 'INVALID_ACCESS_TOKEN');
        expect(res.body.error.detail).toMatch(/expired/);
      } finally {
        await shortLived.close();
      }
    }, 60_000);

    it('verifies tokens of the previous signing key listed in JWT_PUBLIC_KEYS, and only those', async () => {
      const oldToken = token;
      const oldPublic = createPublicKey(testSigningKey()).export({ type: 'spki', format: 'pem' }).toString();
      const rotated = await createTestApp({ env: { JWT_PRIVATE_KEY: newRsaKey(), JWT_PUBLIC_KEYS: oldPublic } });
      const forgotten = await createTestApp({ env: { JWT_PRIVATE_KEY: newRsaKey() } });
      try {
        const viaRotated = request(rotated.getHttpServer());
        await viaRotated.get('/v1/context').set('Authorization', `Bearer ${oldToken}`).expect(200);
        const newToken = await tokenFor(viaRotated, client);
        expect(jwt.decode(newToken, { complete: true })!.header.kid).not.toBe(kid);
        await viaRotated.get('/v1/context').set('Authorization', `Bearer ${newToken}`).expect(200);
        // The old deployment does not know the new key; one without the old key refuses old tokens.
        expectError(await get('/v1/context', newToken), 401, 'INVALID_ACCESS_TOKEN');
        expectError(
          await request(forgotten.getHttpServer()).get('/v1/context').set('Authorization', `Bearer ${oldToken}`),
          401,
          'INVALID_ACCESS_TOKEN',
        );
      } finally {
        await Promise.all([rotated.close(), forgotten.close()]);
      }
    });
  });

  describe('credential state, checked on every request', () => {
    it('rejects the next request after the client is revoked', async () => {
      const c = await createClient(owner, company);
      const t = await tokenFor(http, c);
      await get('/v1/context', t).expect(200);
      await clientsAdmin(owner).setStatus(c.clientId, 'revoked');
      expectError(await get('/v1/context', t), 401, 'INVALID_ACCESS_TOKEN');
    });

    it('rejects the next request after the client is disabled, and keeps old tokens dead after it is enabled again', async () => {
      const c = await createClient(owner, company);
      const t = await tokenFor(http, c);
      await clientsAdmin(owner).setStatus(c.clientId, 'disabled');
      expectError(await get('/v1/context', t), 401, 'INVALID_ACCESS_TOKEN');
      await clientsAdmin(owner).setStatus(c.clientId, 'active');
      expectError(await get('/v1/context', t), 401, 'INVALID_ACCESS_TOKEN');
      await get('/v1/context', await tokenFor(http, c)).expect(200);
    });

    it('rejects a revoked client on another instance too (no instance caches credential state)', async () => {
      const other = await createTestApp();
      try {
        const c = await createClient(owner, company);
        const t = await tokenFor(http, c);
        await request(other.getHttpServer()).get('/v1/context').set('Authorization', `Bearer ${t}`).expect(200);
        await clientsAdmin(owner).setStatus(c.clientId, 'revoked');
        expectError(
          await request(other.getHttpServer()).get('/v1/context').set('Authorization', `Bearer ${t}`),
          401,
          'INVALID_ACCESS_TOKEN',
        );
      } finally {
        await other.close();
      }
    });

    it('answers 403 API_ACCESS_DISABLED with an issued token while the company has API access off', async () => {
      const closing = await createCompany(owner);
      const c = await createClient(owner, closing);
      const t = await tokenFor(http, c);
      await owner.getRepository(Company).update({ id: closing.id }, { apiAccess: false });
      const res = await get('/v1/context', t);
      expectError(res, 403, 'API_ACCESS_DISABLED');
      expect(res.body.error.type).toBe('ForbiddenError');
      await owner.getRepository(Company).update({ id: closing.id }, { apiAccess: true });
      await get('/v1/context', t).expect(200);
    });
  });

  describe('address allow-list on requests', () => {
    const proxy = appBehindTrustedProxy();

    const from = (address: string, t: string) =>
      proxy.http().get('/v1/context').set('Authorization', `Bearer ${t}`).set('X-Forwarded-For', address);

    it.each([
      ['IPv4', '203.0.113.0/24', '203.0.113.10', '198.51.100.10'],
      ['IPv6', '2001:db8::/32', '2001:db8::10', '2001:db9::10'],
      ['IPv4-mapped IPv6 against an IPv4 CIDR', '203.0.113.0/24', '::ffff:203.0.113.10', '::ffff:198.51.100.10'],
    ])('enforces an %s allow-list on every request', async (_kind, cidrs, inside, outside) => {
      const c = await createClient(owner, company, { cidrs });
      const t = (
        await proxy
          .http()
          .post('/oauth/token')
          .set('X-Forwarded-For', inside)
          .type('form')
          .send({ grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret })
          .expect(200)
      ).body.access_token;
      await from(inside, t).expect(200);
      expectError(await from(outside, t), 401, 'INVALID_ACCESS_TOKEN');
    });

    it('applies an allow-list set after the token was issued, on the next request', async () => {
      const c = await createClient(owner, company);
      const t = await tokenFor(proxy.http(), c);
      await from('198.51.100.10', t).expect(200);
      await clientsAdmin(owner).setCidrs(c.clientId, parseCidrList('203.0.113.0/24'));
      expectError(await from('198.51.100.10', t), 401, 'INVALID_ACCESS_TOKEN');
      await from('203.0.113.5', t).expect(200);
    });
  });

  describe('scopes', () => {
    it('lets a token with every required scope through', async () => {
      await get('/v1/_probe/auth/transcripts', token).expect(200);
    });

    it('answers 403 INSUFFICIENT_SCOPE naming the scopes needed when one is missing', async () => {
      const narrow = await tokenFor(http, client, { scope: 'meetings.read' });
      const res = await get('/v1/_probe/auth/transcripts', narrow);
      expectError(res, 403, 'INSUFFICIENT_SCOPE');
      expect(res.body.error.type).toBe('ForbiddenError');
      expect(res.headers['www-authenticate']).toBe(
        'Bearer realm="conversation-read-api", error="insufficient_scope", scope="meetings.read transcriptions.read"',
      );
    });

    it('does not let transcriptions.read alone read a transcript', async () => {
      const alone = await tokenFor(http, client, { scope: 'transcriptions.read' });
      expectError(await get('/v1/_probe/auth/transcripts', alone), 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('order of checks', () => {
    it('puts 401 before 403 INSUFFICIENT_SCOPE and before 400', async () => {
      expectError(await http.get('/v1/_probe/auth/transcripts?bogus=1'), 401, 'MISSING_ACCESS_TOKEN');
    });

    it('puts 403 API_ACCESS_DISABLED before 403 INSUFFICIENT_SCOPE', async () => {
      const closing = await createCompany(owner);
      const c = await createClient(owner, closing, { scopes: ['calls.read'] });
      const t = await tokenFor(http, c);
      await owner.getRepository(Company).update({ id: closing.id }, { apiAccess: false });
      expectError(await get('/v1/_probe/auth/transcripts', t), 403, 'API_ACCESS_DISABLED');
    });

    it.each(['%zz', '%C0%AF', '%E0%80', '%'])(
      'treats a path id with a malformed escape (%s) as any unknown id: 401 first, then 404; an unknown route stays 404',
      async (escape) => {
        expectError(await get(`/v1/meetings/${escape}`), 401, 'MISSING_ACCESS_TOKEN');
        expectError(await get(`/v1/meetings/${escape}/transcript`, 'x'), 401, 'INVALID_ACCESS_TOKEN');
        expectError(await get(`/v1/meetings/${escape}`, token), 404, 'RESOURCE_NOT_FOUND');
        expectError(await get(`/v1/calls/${escape}/answers`, token), 404, 'RESOURCE_NOT_FOUND');
        expectError(await get(`/v1/no-such-route/${escape}`, token), 404, 'RESOURCE_NOT_FOUND');
        expectError(await http.post(`/v1/meetings/${escape}`), 405, 'METHOD_NOT_ALLOWED');
      },
    );

    it('puts 403 INSUFFICIENT_SCOPE before 400 validation', async () => {
      const narrow = await tokenFor(http, client, { scope: 'calls.read' });
      expectError(await get('/v1/_probe/auth/transcripts?bogus=1', narrow), 403, 'INSUFFICIENT_SCOPE');
      expectError(await get('/v1/_probe/auth/transcripts?bogus=1', token), 400, 'INVALID_REQUEST');
    });
  });

  describe('tenant', () => {
    it('runs the request in the token company: an unfiltered query sees company A only, a B token sees B only', async () => {
      const other = await createCompany(owner);
      const otherClient = await createClient(owner, other);
      const [ra, rb] = await Promise.all([
        get('/v1/_probe/auth/companies', token),
        get('/v1/_probe/auth/companies', await tokenFor(http, otherClient)),
      ]);
      expect(ra.body.data).toEqual([company.publicId]);
      expect(rb.body.data).toEqual([other.publicId]);
    });
  });
});

describe('GET /v1/context', () => {
  let owner: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    [owner, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    http = request(app.getHttpServer());
  });
  afterAll(() => Promise.all([owner.destroy(), app.close()]));

  it('returns the client, the company and the scopes the token carries', async () => {
    const company = await createCompany(owner, { name: 'Contexto S.A.' });
    const client = await createClient(owner, company, {
      name: 'Data warehouse',
      scopes: ['emails.read', 'emails.content.read', 'chat.read'],
    });
    const token = await tokenFor(http, client, { scope: 'emails.read chat.read' });
    const res = await http.get('/v1/context').set('Authorization', `Bearer ${token}`).expect(200);
    expect(res.body).toEqual({
      data: {
        client: { id: client.clientId, name: 'Data warehouse' },
        company: { id: company.publicId, name: 'Contexto S.A.' },
        scopes: ['emails.read', 'chat.read'],
        // This request counted on client and company, the token request on token (quotas of createTestApp).
        rate_limits: ['client', 'company', 'email_content', 'chat_content', 'export', 'webhook_admin', 'token'].map((policy) => ({
          policy,
          quota: 1_000_000,
          window: 60,
          remaining: ['email_content', 'chat_content', 'export', 'webhook_admin'].includes(policy) ? 1_000_000 : 999_999,
          reset: expect.any(Number),
        })),
      },
      request_id: res.headers['x-request-id'],
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    // The internal company id never leaves the service.
    expect(JSON.stringify(res.body)).not.toContain(`"${company.id}"`);
  });

  it('answers 400 INVALID_REQUEST for a query parameter', async () => {
    const company = await createCompany(owner);
    const token = await tokenFor(http, await createClient(owner, company));
    const res = await http.get('/v1/context?verbose=1').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
  });

  it('is documented in OpenAPI with the oauth2 requirement and its response schema', async () => {
    const { body } = await http.get('/openapi.json').expect(200);
    const op = body.paths['/v1/context'].get;
    expect(op.security).toEqual([{ oauth2: [] }]);
    expect(op.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/ContextEnvelope');
    expect(op.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorEnvelope');
    expect(Object.keys(body.components.schemas.ContextDto.properties).sort()).toEqual(['client', 'company', 'rate_limits', 'scopes']);
  });
});

describe('bearer authentication while the application closes', () => {
  it('a request served after the modules were destroyed, before the server closed, gets a documented answer, not a 500: the strategy leaves only at shutdown, after the server closed', async () => {
    const owner = await ownerDataSource();
    const company = await createCompany(owner);
    const client = await createClient(owner, company, { scopes: ['meetings.read'] });
    let base = '';
    let bearer = '';
    const during: number[] = [];
    // Nest runs every module's destroy hook, then every before-shutdown hook, and only then
    // closes the HTTP server: a request that arrives meanwhile (keep-alive, in flight) is served
    // by an application whose modules were destroyed.
    @Module({})
    class RequestWhileClosing implements BeforeApplicationShutdown {
      async beforeApplicationShutdown(): Promise<void> {
        const res = await fetch(`${base}/v1/meetings?limit=1`, { headers: { Authorization: `Bearer ${bearer}` } });
        during.push(res.status);
      }
    }
    const app = await createTestApp({ extra: [RequestWhileClosing] });
    try {
      await app.listen(0, '127.0.0.1');
      base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
      bearer = await tokenFor(request(app.getHttpServer()), client);
    } finally {
      await app.close();
      await owner.destroy();
    }
    // Authenticated (before the fix: 500, no strategy), then refused as the database's pool closed with its module: 503.
    expect(during).toEqual([503]);
  });
});
