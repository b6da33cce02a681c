import { createPublicKey } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { NestExpressApplication } from '@nestjs/platform-express';
import fc from 'fast-check';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { thumbprint, TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../src/auth/access-tokens';
import { ALL_SCOPES } from '../../src/contract/scopes';
import { Company } from '../../src/companies/company.entity';
import { basicAuth, clientsAdmin, createClient, requestToken, TestClient } from '../support/credentials';
import { createCompany } from '../support/factories';
import { secretFingerprint } from '../../src/clients/client-secret';
import { appBehindTrustedProxy, createTestApp, eventually, ownerDataSource, sleep, testSigningKey } from '../support/test-app';

/** Node refuses to send header values with control or non-ASCII characters. */
const printable = (c: string) => c >= ' ' && c <= '~';

describe('POST /oauth/token', () => {
  let owner: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let company: Company;
  let client: TestClient;

  beforeAll(async () => {
    [owner, app] = await Promise.all([ownerDataSource(), createTestApp()]);
    http = request(app.getHttpServer());
    company = await createCompany(owner);
    client = await createClient(owner, company, { scopes: ['meetings.read', 'calls.read', 'transcriptions.read'] });
  });
  afterAll(() => Promise.all([owner.destroy(), app.close()]));

  function expectOAuthError(res: request.Response, status: number, error: string) {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error, error_description: expect.any(String) });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
  }

  describe('issuance', () => {
    it('issues a Bearer token for client_id and client_secret in the body, with no-store headers and no refresh token', async () => {
      const res = await requestToken(http, client).expect(200);
      expect(res.body).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'meetings.read calls.read transcriptions.read',
      });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.pragma).toBe('no-cache');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });

    it('issues a token for HTTP Basic client authentication', async () => {
      const res = await http
        .post('/oauth/token')
        .set('Authorization', basicAuth(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials' });
      expect(res.status).toBe(200);
      expect(res.body.token_type).toBe('Bearer');
    });

    it('accepts client_id in the body beside Basic when it names the same client', async () => {
      const res = await http
        .post('/oauth/token')
        .set('Authorization', basicAuth(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: client.clientId });
      expect(res.status).toBe(200);
    });

    it('signs an RS256 at+jwt whose kid is the signing key thumbprint, with every documented claim', async () => {
      const { body } = await requestToken(http, client, { scope: 'calls.read' }).expect(200);
      const decoded = jwt.decode(body.access_token, { complete: true })!;
      const kid = thumbprint(createPublicKey(testSigningKey()));
      expect(decoded.header).toEqual({ alg: 'RS256', typ: 'at+jwt', kid });
      const claims = decoded.payload as Record<string, unknown>;
      expect(Object.keys(claims).sort()).toEqual(['aud', 'company', 'exp', 'iat', 'iss', 'jti', 'scope', 'sec', 'sub', 'ver']);
      expect(claims).toMatchObject({
        iss: TOKEN_ISSUER,
        aud: TOKEN_AUDIENCE,
        sub: client.clientId,
        company: company.publicId,
        scope: 'calls.read',
        ver: 1,
        // The secret presented, by its fingerprint (the first 8 bytes of SHA-256 of its stored hash): never the secret.
        sec: secretFingerprint(client.clientSecret),
      });
      expect(JSON.stringify(claims)).not.toContain(client.clientSecret);
      expect(claims.exp).toBe((claims.iat as number) + 3600);
      // Verifiable with the public key alone, pinned to RS256.
      expect(() =>
        jwt.verify(body.access_token, createPublicKey(testSigningKey()), {
          algorithms: ['RS256'],
          issuer: TOKEN_ISSUER,
          audience: TOKEN_AUDIENCE,
        }),
      ).not.toThrow();
    });

    it('gives every token its own jti', async () => {
      const [a, b] = await Promise.all([requestToken(http, client), requestToken(http, client)]);
      expect((jwt.decode(a.body.access_token) as jwt.JwtPayload).jti).not.toBe((jwt.decode(b.body.access_token) as jwt.JwtPayload).jti);
    });

    it('honours TOKEN_TTL_SECONDS in expires_in and exp', async () => {
      const shortApp = await createTestApp({ env: { TOKEN_TTL_SECONDS: '120' } });
      try {
        const res = await requestToken(request(shortApp.getHttpServer()), client).expect(200);
        expect(res.body.expires_in).toBe(120);
        const claims = jwt.decode(res.body.access_token) as jwt.JwtPayload;
        expect(claims.exp! - claims.iat!).toBe(120);
      } finally {
        await shortApp.close();
      }
    });
  });

  describe('scope', () => {
    it('grants every scope of the client when scope is omitted', async () => {
      expect((await requestToken(http, client).expect(200)).body.scope).toBe('meetings.read calls.read transcriptions.read');
    });

    it.each([[''], ['   ']])('answers 400 invalid_scope for scope=%j: a scope is one or more names (RFC 6749 §3.3), not "every scope"', async (scope) => {
      expectOAuthError(await requestToken(http, client, { scope }), 400, 'invalid_scope');
    });

    it('grants exactly the requested subset, in canonical order', async () => {
      const res = await requestToken(http, client, { scope: 'transcriptions.read meetings.read' }).expect(200);
      expect(res.body.scope).toBe('meetings.read transcriptions.read');
    });

    it.each([
      ['a scope the client lacks', 'emails.read'],
      ['an unknown scope', 'meetings.write'],
      ['one good and one lacking', 'meetings.read chat.read'],
    ])('answers 400 invalid_scope for %s', async (_case, scope) => {
      expectOAuthError(await requestToken(http, client, { scope }), 400, 'invalid_scope');
    });
  });

  describe('request form', () => {
    it('answers 415 UNSUPPORTED_MEDIA_TYPE for a JSON body', async () => {
      const res = await http
        .post('/oauth/token')
        .send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
      expectOAuthError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers 415 for a form in a charset other than UTF-8', async () => {
      const res = await http
        .post('/oauth/token')
        .set('Content-Type', 'application/x-www-form-urlencoded; charset=koi8-r')
        .send('grant_type=client_credentials');
      expectOAuthError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it.each(['/oauth/token/', '/OAuth/Token', '/oauth//token', '/oauth/%74oken'])(
      'answers %s 404 RESOURCE_NOT_FOUND: one spelling per route, no alias of the token endpoint',
      async (path) => {
        for (const res of [
          await http.post(path).send({ grant_type: 'client_credentials' }),
          await http
            .post(path)
            .type('form')
            .send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
        ]) {
          expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 404, code: 'RESOURCE_NOT_FOUND' });
          expect(res.body.access_token).toBeUndefined();
          expect(res.headers['ratelimit-policy']).toBeUndefined();
        }
      },
    );

    describe('content codings', () => {
      const form = () => `grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}`;
      // superagent would form-encode a Buffer body; it goes as it is.
      const post = (coding: string, body: Buffer) =>
        http
          .post('/oauth/token')
          .set('Content-Type', 'application/x-www-form-urlencoded')
          .set('Content-Encoding', coding)
          .serialize((raw) => raw)
          .send(body);

      it.each([
        ['gzip', gzipSync],
        ['deflate', deflateSync],
        ['br', brotliCompressSync],
      ])('reads a %s body', async (coding, compress) => {
        expect((await post(coding, compress(Buffer.from(form())))).status).toBe(200);
      });

      it.each(['gzip', 'deflate', 'br'])('answers 400 invalid_request for a body that is not the %s it claims', async (coding) => {
        expectOAuthError(await post(coding, Buffer.from(form())), 400, 'invalid_request');
      });

      it('answers 415 for a content coding it does not know', async () => {
        expectOAuthError(await post('x-compress', Buffer.from(form())), 415, 'UNSUPPORTED_MEDIA_TYPE');
      });

      it('answers 413 for a small compressed body that inflates beyond 8 KiB', async () => {
        expectOAuthError(await post('gzip', gzipSync(Buffer.from(`${form()}&pad=${'x'.repeat(64 * 1024)}`))), 413, 'PAYLOAD_TOO_LARGE');
      });
    });

    it('answers 415 when there is no Content-Type', async () => {
      expectOAuthError(await http.post('/oauth/token'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers 413 PAYLOAD_TOO_LARGE for a body over 8 KiB', async () => {
      const res = await http
        .post('/oauth/token')
        .type('form')
        .send(`grant_type=client_credentials&pad=${'x'.repeat(8 * 1024)}`);
      expectOAuthError(res, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('accepts a body just under 8 KiB', async () => {
      const base = `grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}&pad=`;
      const res = await http
        .post('/oauth/token')
        .type('form')
        .send(base + 'x'.repeat(8 * 1024 - base.length));
      expect(res.status).toBe(200);
    });

    it('answers 400 invalid_request without grant_type', async () => {
      expectOAuthError(
        await http.post('/oauth/token').type('form').send({ client_id: client.clientId, client_secret: client.clientSecret }),
        400,
        'invalid_request',
      );
    });

    it('answers 400 unsupported_grant_type for another grant', async () => {
      expectOAuthError(await requestToken(http, client, { grant_type: 'password' }), 400, 'unsupported_grant_type');
    });

    it('answers 400 invalid_request for a parameter given twice', async () => {
      const res = await http
        .post('/oauth/token')
        .type('form')
        .send(
          `grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}&scope=calls.read&scope=meetings.read`,
        );
      expectOAuthError(res, 400, 'invalid_request');
    });

    it('answers 400 invalid_request for a query parameter', async () => {
      const res = await http
        .post('/oauth/token?client_secret=x')
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
      expectOAuthError(res, 400, 'invalid_request');
    });

    it('answers 400 invalid_request when the client authenticates both in the body and with Basic', async () => {
      const res = await http
        .post('/oauth/token')
        .set('Authorization', basicAuth(client.clientId, client.clientSecret))
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
      expectOAuthError(res, 400, 'invalid_request');
    });
  });

  describe('client authentication', () => {
    it('answers 401 invalid_client for a wrong secret, without a Basic challenge', async () => {
      const res = await requestToken(http, { clientId: client.clientId, clientSecret: `${client.clientSecret}x` });
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    it('answers an unknown client exactly like a wrong secret', async () => {
      const wrongSecret = await requestToken(http, { clientId: client.clientId, clientSecret: 'secret_nope' });
      const unknown = await requestToken(http, { clientId: 'cli_0123456789abcdefghijkl', clientSecret: 'secret_nope' });
      const malformed = await requestToken(http, { clientId: 'nobody', clientSecret: 'secret_nope' });
      for (const res of [unknown, malformed]) {
        expect(res.status).toBe(wrongSecret.status);
        expect(res.body).toEqual(wrongSecret.body);
      }
    });

    it('answers 401 invalid_client with WWW-Authenticate: Basic when Basic authentication fails', async () => {
      for (const authorization of [
        basicAuth(client.clientId, 'wrong'),
        'Basic !!!notbase64',
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
        'Bearer abc',
      ]) {
        const res = await http
          .post('/oauth/token')
          .set('Authorization', authorization)
          .type('form')
          .send({ grant_type: 'client_credentials' });
        expectOAuthError(res, 401, 'invalid_client');
        expect(res.headers['www-authenticate']).toMatch(/^Basic realm="conversation-read-api"/);
      }
    });

    it('answers 401 invalid_client without credentials', async () => {
      expectOAuthError(await http.post('/oauth/token').type('form').send({ grant_type: 'client_credentials' }), 401, 'invalid_client');
      expectOAuthError(
        await http.post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: client.clientId }),
        401,
        'invalid_client',
      );
    });

    it.each(['disabled', 'revoked'] as const)('answers 401 invalid_client for a %s client', async (status) => {
      const other = await createClient(owner, company);
      await clientsAdmin(owner).setStatus(other.clientId, status);
      expectOAuthError(await requestToken(http, other), 401, 'invalid_client');
    });

    it('answers 403 API_ACCESS_DISABLED when the company has API access off, and issues again once it is back on', async () => {
      const closed = await createCompany(owner, { apiAccess: false });
      const closedClient = await createClient(owner, closed);
      expectOAuthError(await requestToken(http, closedClient), 403, 'API_ACCESS_DISABLED');
      await owner.getRepository(Company).update({ id: closed.id }, { apiAccess: true });
      await requestToken(http, closedClient).expect(200);
    });

    it('checks the secret before API_ACCESS: a wrong secret on a closed company is still 401', async () => {
      const closed = await createCompany(owner, { apiAccess: false });
      const closedClient = await createClient(owner, closed);
      expectOAuthError(await requestToken(http, { ...closedClient, clientSecret: 'secret_wrong' }), 401, 'invalid_client');
    });
  });

  describe('secret rotation', () => {
    it('keeps the previous and the new secret working, and refuses a third with ROTATION_IN_PROGRESS', async () => {
      const rotating = await createClient(owner, company);
      const admin = clientsAdmin(owner);
      const rotated = await admin.rotateSecret(rotating.clientId);
      expect(rotated.client_secret).not.toBe(rotating.clientSecret);
      const graceMs = new Date(rotated.previous_secret_expires_at).getTime() - Date.now();
      expect(graceMs).toBeGreaterThan(604_800_000 - 60_000);
      expect(graceMs).toBeLessThanOrEqual(604_800_000);

      await requestToken(http, rotating).expect(200);
      await requestToken(http, { ...rotating, clientSecret: rotated.client_secret }).expect(200);
      await expect(admin.rotateSecret(rotating.clientId)).rejects.toMatchObject({ code: 'ROTATION_IN_PROGRESS' });
      // The refused rotation changed nothing.
      await requestToken(http, rotating).expect(200);
      await requestToken(http, { ...rotating, clientSecret: rotated.client_secret }).expect(200);
    });

    it('stops accepting the previous secret after SECRET_GRACE_SECONDS, then allows the next rotation', async () => {
      const rotating = await createClient(owner, company);
      const admin = clientsAdmin(owner, { SECRET_GRACE_SECONDS: '1' });
      const rotated = await admin.rotateSecret(rotating.clientId);
      await requestToken(http, rotating).expect(200);
      await sleep(1300);
      expectOAuthError(await requestToken(http, rotating), 401, 'invalid_client');
      await requestToken(http, { ...rotating, clientSecret: rotated.client_secret }).expect(200);
      const again = await admin.rotateSecret(rotating.clientId);
      await requestToken(http, { ...rotating, clientSecret: again.client_secret }).expect(200);
    });

    it('ends the previous secret at once with expire-previous-secret: only the new one works then', async () => {
      const rotating = await createClient(owner, company);
      const admin = clientsAdmin(owner);
      const rotated = await admin.rotateSecret(rotating.clientId);
      await requestToken(http, rotating).expect(200);
      expect(await admin.expirePreviousSecret(rotating.clientId)).toEqual({
        client_id: rotating.clientId,
        company_id: company.publicId,
        expired_secrets: 1,
      });
      expectOAuthError(await requestToken(http, rotating), 401, 'invalid_client');
      await requestToken(http, { ...rotating, clientSecret: rotated.client_secret }).expect(200);
      // Nothing left to end: the current secret is never touched, and a new rotation is allowed at once.
      expect((await admin.expirePreviousSecret(rotating.clientId)).expired_secrets).toBe(0);
      await requestToken(http, { ...rotating, clientSecret: rotated.client_secret }).expect(200);
      const again = await admin.rotateSecret(rotating.clientId);
      await requestToken(http, { ...rotating, clientSecret: again.client_secret }).expect(200);
    });

    it('ends the tokens a previous secret issued when its grace is ended, and only those', async () => {
      const rotating = await createClient(owner, company);
      const admin = clientsAdmin(owner);
      const reads = async (token: string) => (await http.get('/v1/context').set('Authorization', `Bearer ${token}`)).status;
      const before = (await requestToken(http, rotating).expect(200)).body.access_token;
      const rotated = await admin.rotateSecret(rotating.clientId);
      const next = { ...rotating, clientSecret: rotated.client_secret };
      const oldDuringGrace = (await requestToken(http, rotating).expect(200)).body.access_token;
      const newDuringGrace = (await requestToken(http, next).expect(200)).body.access_token;
      // During the grace every one of them reads.
      expect([await reads(before), await reads(oldDuringGrace), await reads(newDuringGrace)]).toEqual([200, 200, 200]);
      await admin.expirePreviousSecret(rotating.clientId);
      // The leaked secret's tokens stop at once; the new secret's go on, and new ones are issued.
      const res = await http.get('/v1/context').set('Authorization', `Bearer ${before}`);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_ACCESS_TOKEN');
      expect(await reads(oldDuringGrace)).toBe(401);
      expect(await reads(newDuringGrace)).toBe(200);
      expect(await reads((await requestToken(http, next).expect(200)).body.access_token)).toBe(200);
    });

    it('ends a previous secret’s tokens when its grace runs out, too', async () => {
      const rotating = await createClient(owner, company);
      const rotated = await clientsAdmin(owner, { SECRET_GRACE_SECONDS: '1' }).rotateSecret(rotating.clientId);
      const old = (await requestToken(http, rotating).expect(200)).body.access_token;
      const fresh = (await requestToken(http, { ...rotating, clientSecret: rotated.client_secret }).expect(200)).body.access_token;
      await http.get('/v1/context').set('Authorization', `Bearer ${old}`).expect(200);
      await eventually(async () => (await http.get('/v1/context').set('Authorization', `Bearer ${old}`)).status === 401, 20_000);
      await http.get('/v1/context').set('Authorization', `Bearer ${fresh}`).expect(200);
    });

    it('does not invalidate tokens issued before a rotation', async () => {
      const rotating = await createClient(owner, company);
      const token = (await requestToken(http, rotating).expect(200)).body.access_token;
      await clientsAdmin(owner).rotateSecret(rotating.clientId);
      await http.get('/v1/context').set('Authorization', `Bearer ${token}`).expect(200);
    });

    it('stores only a hash of each secret', async () => {
      const fresh = await createClient(owner, company);
      const rows: Array<{ secret_hash: Buffer }> = await owner.query(
        'SELECT s.secret_hash FROM client_secrets s JOIN api_clients c ON c.id = s.client_id WHERE c.public_id = $1',
        [fresh.clientId],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].secret_hash).toHaveLength(32);
      expect(rows[0].secret_hash.toString('utf8')).not.toContain(fresh.clientSecret);
      const dump = JSON.stringify(await owner.query('SELECT * FROM api_clients c WHERE c.public_id = $1', [fresh.clientId]));
      expect(dump).not.toContain(fresh.clientSecret);
    });
  });

  describe('address allow-list at issuance', () => {
    const proxy = appBehindTrustedProxy();

    const from = (address: string, c: TestClient) => requestToken(proxy.http(), c).set('X-Forwarded-For', address);

    it('enforces an IPv4 CIDR', async () => {
      const c = await createClient(owner, company, { cidrs: '203.0.113.0/24' });
      await from('203.0.113.77', c).expect(200);
      expectOAuthError(await from('198.51.100.1', c), 401, 'invalid_client');
    });

    it('enforces an IPv6 CIDR', async () => {
      const c = await createClient(owner, company, { cidrs: '2001:db8::/32' });
      await from('2001:db8:abcd::1', c).expect(200);
      expectOAuthError(await from('2001:db9::1', c), 401, 'invalid_client');
      expectOAuthError(await from('203.0.113.77', c), 401, 'invalid_client');
    });

    it('matches an IPv4-mapped IPv6 address against an IPv4 CIDR', async () => {
      const c = await createClient(owner, company, { cidrs: '203.0.113.0/24' });
      await from('::ffff:203.0.113.9', c).expect(200);
      expectOAuthError(await from('::ffff:198.51.100.9', c), 401, 'invalid_client');
    });

    it('matches the real socket address (IPv4-mapped on a dual-stack socket) when no proxy is trusted', async () => {
      const local = await createClient(owner, company, { cidrs: '127.0.0.0/8' });
      const remote = await createClient(owner, company, { cidrs: '203.0.113.0/24' });
      await requestToken(http, local).expect(200);
      // X-Forwarded-For is not believed without TRUST_PROXY.
      expectOAuthError(await requestToken(http, remote).set('X-Forwarded-For', '203.0.113.9'), 401, 'invalid_client');
    });
  });

  describe('arbitrary input', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '\u0000', '%00', 'cli_\u0000', 'REAL_CLIENT'));

    it('answers any form body and Authorization header with a documented OAuth error, never 500', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.constantFrom('grant_type', 'client_id', 'client_secret', 'scope', 'other'), text),
          fc.option(
            fc.oneof(
              text.map((t) => `Basic ${Buffer.from(t).toString('base64')}`),
              text,
            ),
            { nil: undefined },
          ),
          async (form, authorization) => {
            const req = http.post('/oauth/token').type('form');
            if (authorization !== undefined) req.set('Authorization', authorization.split('').filter(printable).join(''));
            const fields = Object.fromEntries(Object.entries(form).map(([k, v]) => [k, v === 'REAL_CLIENT' ? client.clientId : v]));
            const res = await req.send(new URLSearchParams(fields).toString());
            expect([200, 400, 401, 403]).toContain(res.status);
            if (res.status !== 200) expect(res.body).toEqual({ error: expect.any(String), error_description: expect.any(String) });
          },
        ),
        { numRuns: 150 },
      );
    });

    it('answers any bearer value on /v1 with 401, never 500', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.string(), fc.base64String(), fc.constantFrom('a.b.c', 'e30.e30.', 'eyJhbGciOiJub25lIn0.e30.')),
          async (value) => {
            const res = await http.get('/v1/context').set('Authorization', `Bearer ${value.split('').filter(printable).join('')}`);
            expect(res.status).toBe(401);
            expect(['MISSING_ACCESS_TOKEN', 'INVALID_ACCESS_TOKEN']).toContain(res.body.error.code);
          },
        ),
        { numRuns: 150 },
      );
    });
  });

  it('is documented in OpenAPI: form body, Basic as an alternative, token and OAuth error bodies', async () => {
    const { body } = await http.get('/openapi.json').expect(200);
    const post = body.paths['/oauth/token'].post;
    expect(Object.keys(post.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    const form = body.components.schemas.TokenRequestForm;
    expect(form.required).toEqual(['grant_type']);
    for (const scope of ALL_SCOPES) expect(form.properties.scope.description).toContain(scope);
    expect(post.security).toEqual([{ client_basic: [] }, {}]);
    expect(body.components.securitySchemes.client_basic).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(post.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/TokenResponseDto');
    for (const status of ['400', '401', '403', '413', '415', '503']) {
      expect(post.responses[status].content['application/json'].schema.$ref).toBe('#/components/schemas/OAuthErrorBody');
    }
  });
});
