import { createPublicKey } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { unescape } from 'node:querystring';
import { NestExpressApplication } from '@nestjs/platform-express';
import fc from 'fast-check';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_SCOPES, DATA_SCOPES, Scope } from '../../src/contract/scopes';
import { Company } from '../../src/companies/company.entity';
import { loadConfig } from '../../src/config/app-config';
import { DemoSeeder } from '../../src/seeding/demo-seeder';
import { createClient, TestClient, tokenFor } from '../support/credentials';
import { createCompany } from '../support/factories';
import {
  Auth,
  Code,
  describeOutcome,
  ERROR_TYPE_OF_STATUS,
  expectedV1,
  METHOD_NOT_ALLOWED,
  NOT_FOUND,
  OAUTH_ERRORS,
  Outcome,
  PATH_KINDS,
  PathIdOwner,
  PathKind,
  PUBLIC_ID,
  V1_ROUTES,
  V1Call,
} from '../support/fuzz-model';
import {
  Answer,
  GeneratedRequest,
  noiseHeadersArb,
  oneIn,
  RawHttp,
  Tenant,
  TokenAttempt,
  tokenRequestArb,
  unknownPathArb,
  v1RequestArb,
  World,
} from '../support/fuzz-requests';
import { OpenApiResponses } from '../support/openapi-responses';
import { createTestApp, ownerDataSource, testSigningKey } from '../support/test-app';

/**
 * Issue #9 item 4: generated requests over every route (query names and values, path ids,
 * Authorization variants and forged JWTs, noise headers, token-endpoint bodies, media types
 * and encodings, other methods, unknown paths). Each answer is checked against what the
 * contract allows for that request: its status (never a 5xx), the documented body (the
 * envelope with a listed code, the OAuth shape on /oauth/token, the OpenAPI schema on 200),
 * the headers, and that no public id of a company other than the caller's appears in it.
 *
 * FUZZ_SEED replays a run (a failure prints its seed); FUZZ_SCALE multiplies the runs;
 * FUZZ_STATS=1 prints the answers seen by status and code; FUZZ_LOG_LEVEL=warn shows the service's log.
 *
 * One file of about a minute, on purpose: its last test holds the run as a whole to its promise
 * (over 10,000 requests, the data reached, every kind of refusal on every surface seen), which
 * files run apart could not check; the time is the requests themselves, each answered by the
 * real app and checked against the contract.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
/** Generated requests per property run: sent together, as concurrent clients would. */
const BATCH = 8;
const RUNS = { v1: 850, token: 300, other: 125 };
const REQUIRED_REQUESTS = 10_000;

class Violation extends Error {}

/** How many answers of each kind a run saw: `<surface> <status> <code or route>`. */
class Tally extends Map<string, number> {
  add(key: string): this {
    return this.set(key, (this.get(key) ?? 0) + 1);
  }

  sum(prefix: string): number {
    return [...this].filter(([k]) => k.startsWith(prefix)).reduce((n, [, v]) => n + v, 0);
  }
}

/** The code of an error answer: the envelope's, or the OAuth `error`. */
function errorCode(a: Answer): string {
  const error = (a.json as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? error : String((error as { code?: unknown } | undefined)?.code ?? '');
}
function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Violation(what);
}

/**
 * Runs `property` over batches of `arb` and, on failure, names the broken promise, the request
 * and the answer (shrunk), with the seed and path that replay it.
 */
async function fuzz<T>(
  arb: fc.Arbitrary<T>,
  runs: number,
  property: (item: T, answer: Answer) => void,
  send: (item: T) => GeneratedRequest,
  http: RawHttp,
) {
  const batch = fc.array(arb, { minLength: BATCH, maxLength: BATCH });
  const details = await fc.check(
    fc.asyncProperty(batch, async (items) => {
      const answers = await Promise.all(items.map((item) => http.send(send(item))));
      items.forEach((item, i) => {
        try {
          property(item, answers[i]);
        } catch (error) {
          const [r, a] = [send(item), answers[i]];
          throw new Violation(
            `${(error as Error).message}\n  request: ${r.method} ${r.target.slice(0, 400)}` +
              `\n  headers: ${JSON.stringify(r.headers).slice(0, 800)}` +
              (r.body ? `\n  body: ${r.body.toString('latin1').slice(0, 300)}` : '') +
              `\n  answer: ${a.status} ${JSON.stringify(a.headers).slice(0, 800)}\n  ${a.text.slice(0, 600)}`,
          );
        }
      });
    }),
    { seed: SEED, numRuns: Math.max(1, Math.round(runs * SCALE)) },
  );
  if (details.failed) {
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      `fuzzing found a request the contract does not allow (after ${details.numRuns} runs, shrunk ${details.numShrinks} times):\n${cause}\n\n` +
        `Replay with: FUZZ_SEED=${details.seed} npx jest test/e2e/fuzz  (fast-check seed ${details.seed}, path "${details.counterexamplePath}")`,
    );
  }
}

describe('fuzzing every route (fast-check)', () => {
  let owner: DataSource;
  let app: NestExpressApplication;
  let http: RawHttp;
  let openapi: OpenApiResponses;
  let world: World;
  const requestIds = new Set<string>();
  const tally = new Tally();
  /** Ids the interface description shows as examples: documentation, not anyone's data. */
  let examples: Set<string>;

  beforeAll(async () => {
    [owner, app] = await Promise.all([ownerDataSource(), createTestApp({ env: { LOG_LEVEL: process.env.FUZZ_LOG_LEVEL ?? 'silent' } })]);
    await app.listen(0, '127.0.0.1');
    http = new RawHttp((app.getHttpServer().address() as AddressInfo).port);
    const agent = request(app.getHttpServer());
    openapi = await OpenApiResponses.load(agent);
    examples = new Set((await agent.get('/openapi.json').expect(200)).text.match(PUBLIC_ID));
    world = await buildWorld(owner, agent);
  }, 120_000);
  afterAll(async () => {
    http?.close();
    await Promise.all([owner?.destroy(), app?.close()]);
  });

  // --- checks shared by every answer -------------------------------------------------------

  /** No 5xx, a fresh request id (never the client's), and no public id the caller may not see. */
  function checkCommon(r: GeneratedRequest, a: Answer, reader: string | undefined): void {
    check(a.status < 500, `answered ${a.status}`);
    const id = a.headers['x-request-id'];
    check(typeof id === 'string' && /^req_[0-9A-Za-z]{22}$/.test(id), `X-Request-Id ${String(id)}`);
    check(!requestIds.has(id), `X-Request-Id ${id} given twice`);
    requestIds.add(id);
    const sent = `${r.target} ${unescape(r.target)} ${JSON.stringify(r.headers)} ${r.body?.toString('utf8') ?? ''}`;
    for (const found of a.text.match(PUBLIC_ID) ?? []) {
      if (sent.includes(found) || examples.has(found)) continue;
      const owner = world.owners.get(found);
      check(
        reader !== undefined && owner === reader,
        `shows ${found} (of ${owner ?? 'a company outside the test'}) to ${reader ?? 'an unauthenticated caller'}`,
      );
    }
  }

  /** The status is one `outcome` allows; an error carries the envelope, exactly, with a listed code. */
  function checkEnvelope(method: string, a: Answer, outcome: Outcome): void {
    check(outcome.has(a.status), `status ${a.status}, expected ${describeOutcome(outcome)}`);
    if (a.status < 400 || method === 'HEAD') return;
    const body = a.json as { error?: Record<string, unknown> } | undefined;
    check(body && Object.keys(body).join() === 'error', 'an error body is { error: {…} }');
    const e = body.error!;
    check(Object.keys(e).sort().join() === 'code,detail,request_id,title,type', `envelope fields ${Object.keys(e).join()}`);
    check(
      ['title', 'detail', 'code', 'type'].every((k) => typeof e[k] === 'string' && (e[k] as string).length > 0),
      'envelope strings',
    );
    check(outcome.get(a.status)!.has(e.code as Code), `code ${String(e.code)}, expected ${describeOutcome(outcome)}`);
    check(e.type === ERROR_TYPE_OF_STATUS[a.status], `type ${String(e.type)} for ${a.status}`);
    check(e.request_id === a.headers['x-request-id'], 'request_id equals X-Request-Id');
  }

  function checkNoStore(a: Answer): void {
    check(a.headers['cache-control'] === 'no-store' && a.headers.pragma === 'no-cache', 'Cache-Control: no-store and Pragma: no-cache');
  }

  // --- /v1 ---------------------------------------------------------------------------------

  function checkV1({ request: r, call, auth }: { request: GeneratedRequest; call: V1Call; auth: Auth }, a: Answer): void {
    tally.add(`v1 ${a.status} ${a.status === 200 ? call.route.template : errorCode(a)}`);
    const reader = auth.kind === 'valid' ? auth.tenant : undefined;
    checkCommon(r, a, reader);
    checkEnvelope(r.method, a, expectedV1(call));
    if (r.target.startsWith('/v1/')) checkNoStore(a);
    if (call.spelling !== 'plain') return; // an unknown path: no policy governs it
    if (a.status === 405) return check(a.headers.allow === 'GET, HEAD', `Allow ${String(a.headers.allow)}`);

    const policies = String(a.headers['ratelimit-policy'] ?? '');
    const content = call.route.contentPolicy;
    check(/"client";/.test(policies) && /"company";/.test(policies), `RateLimit-Policy ${policies}`);
    check(!content || policies.includes(`"${content}"`), `RateLimit-Policy without ${content}`);
    if (a.status === 401) {
      const challenge = String(a.headers['www-authenticate'] ?? '');
      check(challenge.startsWith('Bearer '), `WWW-Authenticate ${challenge}`);
      check(
        auth.kind === 'none' ||
          (a.json as { error: { code: string } } | undefined)?.error.code !== 'INVALID_ACCESS_TOKEN' ||
          challenge.includes('error="invalid_token"'),
        'invalid_token challenge',
      );
    }
    if (a.status === 403 && r.method === 'GET' && (a.json as { error: { code: string } }).error.code === 'INSUFFICIENT_SCOPE') {
      const challenge = String(a.headers['www-authenticate'] ?? '');
      check(
        challenge.includes('error="insufficient_scope"') && call.route.scopes.every((s) => challenge.includes(s)),
        `WWW-Authenticate ${challenge}`,
      );
    }
    if (auth.kind === 'valid' && auth.apiAccess && a.status !== 401) check(typeof a.headers.ratelimit === 'string', 'RateLimit header');
    if (a.status !== 200) return;
    if (r.method === 'HEAD') return check(a.text === '', 'HEAD has no body');
    // Captions, in a text format (`format`, else the noise's Accept, else WebVTT): the contract recorder checks the media type.
    const type = String(a.headers['content-type']);
    if (/\/transcript\/captions$/.test(call.route.template))
      return check(/^(text\/vtt|application\/x-subrip|text\/plain); charset=utf-8$/.test(type), `captions in ${type}`);
    if (!type.startsWith('application/json')) return check(false, `a 200 in ${type}`);
    const errors = openapi.errors(call.route.template, { status: 200, body: a.json } as request.Response);
    check(errors.length === 0, `200 body does not match the OpenAPI schema: ${errors.slice(0, 3).join('; ')}`);
    const data = (a.json as { data: Record<string, unknown> }).data;
    const tenant = world.tenants.find((t) => t.name === reader)!;
    if (call.route.template === '/v1/context') check((data.company as { id: string }).id === tenant.companyId, 'context of the caller');
    const addressed = call.route.child ? call.childId : call.id;
    if (call.route.template.endsWith('}')) check(data.id === addressed, `data.id ${String(data.id)} for ${addressed}`);
    if (call.route.child) check(data.conversation_id === call.id, `conversation_id ${String(data.conversation_id)} for ${call.id}`);
    if (/\/(evaluations\/overall|transcript)$/.test(call.route.template))
      check(data.meeting_id === call.id, `meeting_id ${String(data.meeting_id)}`);
  }

  it(`answers ${RUNS.v1 * BATCH} generated /v1 requests as the contract says`, async () => {
    await fuzz(v1RequestArb(world), RUNS.v1, checkV1, (item) => item.request, http);
  }, 600_000);

  // --- /oauth/token ------------------------------------------------------------------------

  /** The client of the test with that id, and its tenant. */
  const clientOf = (clientId: string) =>
    world.tenants.flatMap((tenant) => tenant.clients.map((c) => ({ ...c, tenant }))).find((c) => c.clientId === clientId);

  /** The statuses the contract allows for a token request; one status where the request leaves no doubt. */
  function expectedToken(t: TokenAttempt): number[] {
    if (t.request.method !== 'POST') return [405];
    if (t.mediaType.split(';')[0].trim().toLowerCase() !== 'application/x-www-form-urlencoded') return [415];
    if (t.charset && t.charset.toLowerCase() !== 'utf-8') return [415];
    if (t.encoding === 'unsupported') return [415];
    if (t.encoding === 'corrupt') return [400];
    if (t.size > 8 * 1024 || t.fields.length > 32) return [413];

    const count = (name: string) => t.fields.filter(([k]) => k === name).length;
    const value = (name: string) => t.fields.find(([k]) => k === name)?.[1] || undefined;
    const clean =
      count('grant_type') === 1 &&
      value('grant_type') === 'client_credentials' &&
      ['client_id', 'client_secret', 'scope'].every((n) => count(n) <= 1);
    let presented: { clientId: string; clientSecret: string } | undefined;
    if (t.request.headers.authorization === undefined) {
      const [clientId, clientSecret] = [value('client_id'), value('client_secret')];
      if (clientId && clientSecret) presented = { clientId, clientSecret };
    } else if (t.basic && value('client_secret') === undefined && [undefined, t.basic.clientId].includes(value('client_id'))) {
      presented = t.basic;
    }
    const client = presented && clientOf(presented.clientId);
    // An empty scope (`scope=`, or only spaces) names nothing: refused before the client is looked at.
    const scopeField = t.fields.find(([k]) => k === 'scope');
    if (clean && scopeField && !scopeField[1].split(' ').some(Boolean)) return [400];
    const scopes = value('scope')?.split(' ').filter(Boolean) ?? [];
    if (!clean || !presented || !scopes.every((s) => (client?.scopes ?? ALL_SCOPES).includes(s as Scope))) return [200, 400, 401, 403];
    if (!client || client.clientSecret !== presented.clientSecret) return [401];
    return client.tenant.apiAccess ? [200] : [403];
  }

  function checkToken(t: TokenAttempt, a: Answer): void {
    tally.add(`token ${a.status} ${errorCode(a)}`);
    checkCommon(t.request, a, undefined);
    const allowed = expectedToken(t);
    check(allowed.includes(a.status), `status ${a.status}, expected ${allowed.join('|')}`);
    checkNoStore(a);
    if (a.status === 405) return check(a.headers.allow === 'POST', `Allow ${String(a.headers.allow)}`);
    check(String(a.headers['ratelimit-policy']).includes('"token"'), 'RateLimit-Policy names the token policy');
    const body = a.json as Record<string, unknown>;
    if (a.status !== 200) {
      check(body && Object.keys(body).sort().join() === 'error,error_description', `OAuth error shape: ${a.text.slice(0, 200)}`);
      check(OAUTH_ERRORS[a.status]?.includes(body.error as string), `error ${String(body.error)} for ${a.status}`);
      check(typeof body.error_description === 'string' && body.error_description.length > 0, 'error_description');
      if (a.status === 401 && /^basic /i.test(t.request.headers.authorization ?? ''))
        check(String(a.headers['www-authenticate']).startsWith('Basic '), 'Basic challenge');
      return;
    }
    check(Object.keys(body).sort().join() === 'access_token,expires_in,scope,token_type', `token fields ${Object.keys(body).join()}`);
    check(
      body.token_type === 'Bearer' && Number.isInteger(body.expires_in) && (body.expires_in as number) > 0,
      'token_type and expires_in',
    );
    const claims = jwt.verify(body.access_token as string, createPublicKey(world.signingKey), { algorithms: ['RS256'] }) as Record<
      string,
      unknown
    >;
    const client = clientOf(String(claims.sub));
    check(client, `token for ${String(claims.sub)}, not a client of the test`);
    const presentedSecrets = [t.basic?.clientSecret, ...t.fields.filter(([k]) => k === 'client_secret').map(([, v]) => v)];
    check(presentedSecrets.includes(client.clientSecret), 'a token was issued without the client secret');
    check(client.tenant.apiAccess, 'a token was issued to a company without API access');
    check(claims.company === client.tenant.companyId, 'the token names the client company');
    check(
      body.scope === claims.scope && (body.scope as string).split(' ').every((s) => client.scopes.includes(s)),
      `scope ${String(body.scope)} beyond ${client.scopes.join(' ')}`,
    );
  }

  it(`answers ${RUNS.token * BATCH} generated token requests as the contract says`, async () => {
    await fuzz(tokenRequestArb(world), RUNS.token, checkToken, (t) => t.request, http);
  }, 600_000);

  // --- every other path: unknown routes, probes, the interface description --------------------

  type Other = { request: GeneratedRequest; kind: 'unknown' | 'probe' | 'openapi' | 'docs' };
  const KNOWN = [...V1_ROUTES.map((r) => r.template), '/oauth/token', '/health/live', '/health/ready', '/openapi.json'].map(
    (t) => new RegExp(`^${t.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  );
  const known = (path: string) => KNOWN.some((k) => k.test(path)) || /^\/docs(\/|$)/.test(path);
  const METHODS = ['GET', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  const otherArb: fc.Arbitrary<Other> = fc
    .record({
      method: fc.constantFrom(...METHODS),
      target: fc.oneof(
        {
          weight: 3,
          arbitrary: unknownPathArb()
            .filter((p) => !known(p.split('?')[0]))
            .map((p) => ({ path: p, kind: 'unknown' as const })),
        },
        { weight: 2, arbitrary: fc.constantFrom('/health/live', '/health/ready').map((p) => ({ path: p, kind: 'probe' as const })) },
        { weight: 1, arbitrary: fc.constant({ path: '/openapi.json', kind: 'openapi' as const }) },
        { weight: 1, arbitrary: fc.constant({ path: '/docs', kind: 'docs' as const }) },
      ),
      query: oneIn(3, fc.stringMatching(/^[a-z_]{1,8}=[A-Za-z0-9%]{0,8}$/)),
      noise: oneIn(2, noiseHeadersArb),
      auth: oneIn(3, fc.constantFrom('Bearer x', 'Basic Og==')),
    })
    .map(({ method, target, query, noise, auth }) => ({
      kind: target.kind,
      request: {
        method,
        target: `${target.path}${query ? `?${query}` : ''}`,
        headers: { ...(noise ?? {}), ...(auth ? { authorization: auth } : {}) },
      },
    }));

  function checkOther({ request: r, kind }: Other, a: Answer): void {
    tally.add(`other ${a.status} ${kind}`);
    checkCommon(r, a, undefined);
    const path = r.target.split('?')[0];
    if (/^\/v1(\/|$)/.test(path) || path === '/oauth/token') checkNoStore(a);
    if (kind === 'unknown') return checkEnvelope(r.method, a, NOT_FOUND);
    if (!['GET', 'HEAD'].includes(r.method)) {
      checkEnvelope(r.method, a, METHOD_NOT_ALLOWED);
      return check(a.headers.allow === 'GET, HEAD', `Allow ${String(a.headers.allow)}`);
    }
    check(a.status === 200, `status ${a.status}`);
    if (r.method === 'HEAD') return;
    if (kind === 'probe') check((a.json as { status?: string }).status === 'ok', `probe body ${a.text.slice(0, 200)}`);
    if (kind === 'openapi') check((a.json as { info?: { version?: string } }).info?.version === '0.1.0', 'openapi.json');
    if (kind === 'docs') check(String(a.headers['content-type']).startsWith('text/html'), 'docs are HTML');
  }

  it(`answers ${RUNS.other * BATCH} requests to unknown paths, probes and the interface description as documented`, async () => {
    await fuzz(otherArb, RUNS.other, checkOther, (o) => o.request, http);
  }, 600_000);

  it(`sent at least ${REQUIRED_REQUESTS} generated requests, reaching the data and every kind of refusal`, () => {
    if (process.env.FUZZ_STATS)
      console.log(
        [...tally]
          .sort()
          .map(([k, n]) => `${n}\t${k}`)
          .join('\n'),
      );
    expect(requestIds.size).toBe(http.sent);
    if (SCALE < 1) return;
    expect(http.sent).toBeGreaterThanOrEqual(REQUIRED_REQUESTS);
    // A generator that stopped reaching the data (or stopped being refused) would test little.
    expect(tally.sum('v1 200 ')).toBeGreaterThan(300);
    const seen = (surface: string, statuses: number[]) => statuses.filter((status) => tally.sum(`${surface} ${status} `) > 20);
    expect(seen('v1', [400, 401, 403, 404, 405])).toEqual([400, 401, 403, 404, 405]);
    expect(seen('token', [200, 400, 401, 405, 413, 415])).toEqual([200, 400, 401, 405, 413, 415]);
  });
});

// --- the world the requests are generated from -------------------------------------------

/** Public ids of `companyId`'s rows, in every table with a company. */
async function publicIds(owner: DataSource, companyPublicId: string): Promise<string[]> {
  const tables: { table_name: string }[] = await owner.query(`
    SELECT c.table_name FROM information_schema.columns c
    WHERE c.table_schema = 'public' AND c.column_name = 'public_id'
      AND EXISTS (SELECT 1 FROM information_schema.columns d
                  WHERE d.table_schema = 'public' AND d.table_name = c.table_name AND d.column_name = 'company_id')`);
  const ids = [companyPublicId];
  for (const { table_name } of tables) {
    const rows: { public_id: string }[] = await owner.query(
      `SELECT public_id FROM "${table_name}" WHERE company_id = (SELECT id FROM companies WHERE public_id = $1)`,
      [companyPublicId],
    );
    ids.push(...rows.map((r) => r.public_id));
  }
  return ids;
}

/**
 * Two demo companies (data in every collection and state), a third whose API access is turned
 * off after its token was issued; clients with every scope and with a few subsets; real cursors.
 */
async function buildWorld(owner: DataSource, http: ReturnType<typeof request>): Promise<World> {
  const seeder = DemoSeeder.over(owner, loadConfig({ NODE_ENV: 'test' }));
  const demos = [await seeder.seed(), await seeder.seed()];
  const disabled = await createCompany(owner);
  const disabledClient = await createClient(owner, disabled, { scopes: [...ALL_SCOPES] });

  const subsets: Scope[][] = [
    ['meetings.read'],
    ['meetings.read', 'transcriptions.read'],
    ['transcriptions.read', 'calls.read', 'chat.read'],
    ['emails.read'],
    ['emails.content.read', 'chat.content.read', 'chat.read'],
  ];
  const tenants: Tenant[] = [];
  for (const [i, demo] of demos.entries()) {
    const company = { publicId: demo.company_id } as Company;
    // The demo's client holds the data scopes (not audit.read).
    const clients: TestClient[] = [{ clientId: demo.client_id, clientSecret: demo.client_secret, scopes: [...DATA_SCOPES] }];
    for (const scopes of i === 0 ? subsets : subsets.slice(0, 2)) clients.push(await createClient(owner, company, { scopes }));
    const tokens = [];
    for (const c of clients) tokens.push({ token: await tokenFor(http, c), scopes: c.scopes });
    tokens.push({ token: await tokenFor(http, clients[0], { scope: 'calls.read emails.read' }), scopes: ['calls.read', 'emails.read'] });
    tenants.push(await tenant(owner, `company ${String.fromCharCode(65 + i)}`, demo.company_id, true, clients, tokens));
  }
  const disabledToken = await tokenFor(http, disabledClient);
  await owner.getRepository(Company).update(disabled.id, { apiAccess: false });
  tenants.push(
    await tenant(
      owner,
      'company without API access',
      disabled.publicId,
      false,
      [disabledClient],
      [{ token: disabledToken, scopes: [...ALL_SCOPES] }],
    ),
  );

  const owners = new Map<string, string>();
  const pathIds = new Map<string, PathIdOwner>();
  const parents = await conversationsOfMessages(owner);
  for (const t of tenants) {
    for (const id of await publicIds(owner, t.companyId)) owners.set(id, t.name);
    for (const kind of Object.keys(t.ids) as PathKind[])
      for (const id of t.ids[kind]) pathIds.set(id, { tenant: t.name, kind, parent: parents.get(id) });
  }
  const cursors: string[] = [];
  for (const t of tenants.slice(0, 2)) cursors.push(...(await cursorsOf(http, t)));
  if (cursors.length < 10) throw new Error(`the world has only ${cursors.length} cursors`);

  const first = tenants[0].tokens[0].token;
  const decoded = jwt.decode(first, { complete: true })!;
  return {
    tenants,
    owners,
    pathIds,
    cursors,
    signingKey: testSigningKey(),
    kid: String(decoded.header.kid),
    claims: decoded.payload as Record<string, unknown>,
  };
}

async function tenant(
  owner: DataSource,
  name: string,
  companyId: string,
  apiAccess: boolean,
  clients: TestClient[],
  tokens: Tenant['tokens'],
): Promise<Tenant> {
  const all = await publicIds(owner, companyId);
  const ids = Object.fromEntries(
    (Object.entries(PATH_KINDS) as Array<[PathKind, string]>).map(([kind, prefix]) => [kind, all.filter((id) => id.startsWith(prefix))]),
  ) as Record<PathKind, string[]>;
  return { name, companyId, apiAccess, clients, tokens, ids };
}

/** Message public id → its conversation's public id, for every email and chat message. */
async function conversationsOfMessages(owner: DataSource): Promise<Map<string, string>> {
  const rows: { id: string; parent: string }[] = await owner.query(`
    SELECT m.public_id AS id, c.public_id AS parent FROM email_messages m JOIN email_conversations c ON c.id = m.conversation_id
    UNION ALL
    SELECT m.public_id, c.public_id FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id`);
  return new Map(rows.map((r) => [r.id, r.parent]));
}

/** Cursors of every list route of `t` (with and without filters), and of messages routes. */
async function cursorsOf(http: ReturnType<typeof request>, t: Tenant): Promise<string[]> {
  const token = t.tokens[0].token;
  const targets = [
    '/v1/meetings?limit=1',
    '/v1/meetings?limit=1&type=video',
    '/v1/calls?limit=1',
    '/v1/calls?limit=1&has_transcript=true',
    '/v1/emails?limit=1',
    '/v1/chat?limit=1&last_message_after=2000-01-01T00:00:00Z',
    ...t.ids.email.slice(0, 3).map((id) => `/v1/emails/${id}/messages?limit=1`),
    ...t.ids.chat.slice(0, 3).map((id) => `/v1/chat/${id}/messages?limit=1`),
  ];
  const cursors: string[] = [];
  for (const target of targets) {
    const res = await http.get(target).set('Authorization', `Bearer ${token}`).expect(200);
    if (res.body.pagination.next_cursor) cursors.push(res.body.pagination.next_cursor);
  }
  return cursors;
}
