/**
 * fast-check arbitraries of hostile and ordinary HTTP requests for the fuzzing e2e spec, and
 * a keep-alive client that sends them as they are (no normalisation of paths or headers).
 */
import { createHmac, createPrivateKey, generateKeyPairSync, KeyObject, sign } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { ALL_SCOPES, DATA_SCOPES } from '../../src/contract/scopes';
import { basicAuth } from './credentials';
import { Auth, KNOWN_PARAMS, PATH_KINDS, PathIdOwner, PathKind, RouteModel, V1_ROUTES, V1Call } from './fuzz-model';

/** A company the fuzzer reads as, with its credentials and what it owns. */
export interface Tenant {
  name: string;
  companyId: string;
  apiAccess: boolean;
  clients: Array<{ clientId: string; clientSecret: string; scopes: string[] }>;
  /** Tokens the service issued to its clients, with their scopes. */
  tokens: Array<{ token: string; scopes: string[] }>;
  /** Path ids of each collection. */
  ids: Record<PathKind, string[]>;
}

/** Everything the arbitraries draw from: the tenants, who owns each id, real cursors and the signing key. */
export interface World {
  tenants: Tenant[];
  /** Public id → owning tenant name, for every public id of every tenant. */
  owners: Map<string, string>;
  /** Path id → its tenant and collection (and for a message, its conversation's id). */
  pathIds: Map<string, PathIdOwner>;
  /** Cursors the service issued on some route, to some tenant. */
  cursors: string[];
  /** The service's signing key and the `kid` of its tokens. */
  signingKey: string;
  kid: string;
  /** The claims of a good token of the first tenant, the base of forged ones. */
  claims: Record<string, unknown>;
}

export interface GeneratedRequest {
  method: string;
  /** Path and query exactly as sent. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
}

// --- small value generators -------------------------------------------------------------

/** `arb` in one case out of `n`, null otherwise (fc.option's `freq` is the other way round: nil in one case out of freq). */
export function oneIn<T>(n: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
}

const PRINTABLE = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
/** Lone surrogates become U+FFFD (a URL or a form can only carry well-formed text). */
const wellFormed = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
/** Any text, including astral characters and controls. */
const ANY_TEXT = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }), PRINTABLE).map(wellFormed);
const HOSTILE = fc.constantFrom(
  '%zz',
  '%',
  '%C0%AF',
  '%E0%80',
  '%00',
  '%FF',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '%5C',
  "'",
  '"',
  '%27%20OR%201%3D1--',
  '%3Cscript%3E',
  '%0d%0aSet-Cookie:%20x',
  '%EF%BF%BF',
  '%ED%A0%80',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'toString',
  '*',
  '-1',
  '0',
  'NaN',
);

/** A real public id with one thing wrong. */
function mutatedId(id: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.nat(id.length - 1).map((i) => id.slice(0, i) + (id[i] === 'a' ? 'b' : 'a') + id.slice(i + 1)),
    fc.constant(id.toUpperCase()),
    fc.constant(id.slice(0, -1)),
    fc.constant(`${id}0`),
    fc.constant(` ${id}`),
    fc.constantFrom(...Object.values(PATH_KINDS)).map((p) => p + id.slice(id.indexOf('_') + 1)),
  );
}

/** Percent-encodes some characters of `text` that need no encoding (the service must decode them). */
const overEncoded = (text: string) => fc.constant([...text].map((c, i) => (i % 3 === 0 ? `%${c.charCodeAt(0).toString(16)}` : c)).join(''));

/** A path segment: raw as sent, and its decoded value (null when it does not decode). */
export interface Segment {
  raw: string;
  decoded: string | null;
}

function segmentOf(raw: string): Segment {
  try {
    return { raw, decoded: decodeURIComponent(raw) };
  } catch {
    return { raw, decoded: null };
  }
}

/** A segment for a parameter of `kind`, at most `longest` characters (two long ones and a long token would exceed the 16 KiB head). */
function segmentArb(world: World, kind: PathKind | undefined, longest = 6000): fc.Arbitrary<Segment> {
  const all = [...world.pathIds.keys()];
  const ofKind = kind ? world.tenants.flatMap((t) => t.ids[kind]) : all;
  return fc
    .oneof(
      { weight: 6, arbitrary: fc.constantFrom(...ofKind) },
      { weight: 3, arbitrary: fc.constantFrom(...all) },
      { weight: 1, arbitrary: fc.constantFrom(...ofKind).chain(overEncoded) },
      { weight: 2, arbitrary: fc.constantFrom(...all).chain((id) => mutatedId(id).map(encodeURIComponent)) },
      { weight: 2, arbitrary: ANY_TEXT.filter((s) => s.length > 0).map(encodeURIComponent) },
      { weight: 2, arbitrary: HOSTILE },
      { weight: 1, arbitrary: fc.integer({ min: 500, max: longest }).map((n) => 'x'.repeat(n)) },
    )
    .map(segmentOf);
}

/**
 * The segments of a route's two parameters: half the time a real record and its parent (a
 * message and its conversation, of any tenant), so that requests reach the data; else each
 * drawn on its own, mostly a parent and a record that do not belong together.
 */
function segmentPairArb(world: World, route: RouteModel): fc.Arbitrary<[Segment, Segment | undefined]> {
  if (!route.child) return segmentArb(world, route.param?.kind).map((segment) => [segment, undefined]);
  const kind = route.child.kind;
  const pairs = [...world.pathIds].filter(([, o]) => o.kind === kind && o.parent).map(([id, o]) => [o.parent!, id]);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...pairs).map(([parent, id]): [Segment, Segment] => [segmentOf(parent), segmentOf(id)]) },
    { weight: 1, arbitrary: fc.tuple(segmentArb(world, route.param?.kind, 2500), segmentArb(world, kind, 2500)) },
  );
}

// --- query strings ----------------------------------------------------------------------

function dateTime(): fc.Arbitrary<string> {
  const instant = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true });
  return fc.oneof(
    instant.map((d) => d.toISOString()),
    instant.map((d) => d.toISOString().replace('Z', '+05:30')),
    instant.map((d) => d.toISOString().replace('Z', '-00:00')),
    instant.map((d) => d.toISOString().slice(0, 19)),
    instant.map((d) => d.toISOString().slice(0, 10)),
    instant.map((d) => d.toISOString().replace('T', ' ')),
    instant.map((d) => d.toISOString().toLowerCase()),
    instant.map((d) => String(d.getTime())),
    instant.map((d) => d.toUTCString()),
    fc.constantFrom(
      '2026-02-30T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-12-31T23:59:60Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999999999Z',
      '+275760-09-13T00:00:00Z',
      '2026-01-01T00:00:00+25:00',
      '2026-01-01T00:00:00.Z',
      'now',
    ),
  );
}

function cursorValue(world: World): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...world.cursors) },
    { weight: 2, arbitrary: fc.constantFrom(...world.cursors).chain(mutatedId) },
    { weight: 1, arbitrary: fc.base64String({ maxLength: 120 }) },
    { weight: 1, arbitrary: fc.constantFrom(...world.cursors).map((c) => c + c) },
  );
}

function valueFor(name: string, world: World): fc.Arbitrary<string> {
  if (name === 'limit')
    return fc.oneof(
      fc.integer({ min: -5, max: 150 }).map(String),
      fc.constantFrom('1e1', '0x10', '5.0', '5.5', '-0', '007', ' 5', '+5', 'NaN', 'Infinity', '9'.repeat(30)),
    );
  if (name === 'cursor') return cursorValue(world);
  if (name.endsWith('_after') || name.endsWith('_before')) return dateTime();
  if (name === 'owner_email')
    return fc.oneof(
      fc.emailAddress(),
      fc.emailAddress().map((e) => e.toUpperCase()),
      fc.constantFrom('a@', '@b', 'no-at', 'a@b@c'),
    );
  if (name === 'type') return fc.constantFrom('video', 'audio', 'VIDEO', 'image', 'video,audio');
  if (name === 'audience') return fc.constantFrom('internal', 'external', 'External', 'both');
  if (name === 'has_transcript') return fc.constantFrom('true', 'false', 'TRUE', '1', '0', 'yes');
  if (name === 'format') return fc.constantFrom('json', 'vtt', 'srt', 'text', 'VTT', 'html');
  return ANY_TEXT;
}

/** One `name=value` pair of a query string, encoded as sent. */
function pairArb(route: RouteModel, world: World): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 8, arbitrary: route.query.length ? fc.constantFrom(...route.query) : fc.constantFrom(...KNOWN_PARAMS) },
    { weight: 2, arbitrary: fc.constantFrom(...KNOWN_PARAMS) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('access_token', '__proto__', 'constructor', 'limit[]', 'limit[0]', 'cursor[a]', 'Limit', 'LIMIT', 'a.b'),
    },
    { weight: 1, arbitrary: ANY_TEXT },
  );
  return name.chain((n) =>
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .oneof({ weight: 4, arbitrary: valueFor(n, world) }, { weight: 1, arbitrary: ANY_TEXT })
          .map((v) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`),
      },
      { weight: 1, arbitrary: fc.constant(encodeURIComponent(n)) },
      { weight: 1, arbitrary: HOSTILE.map((v) => `${encodeURIComponent(n)}=${v}`) },
    ),
  );
}

/** The query as the service parses it (Express's "simple" parser is node:querystring): each name with each value. */
export function parsedQuery(query: string): Array<[string, string]> {
  return Object.entries(parseQuery(query)).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value ?? '']).map((v): [string, string] => [name, v]),
  );
}

// --- authentication ---------------------------------------------------------------------

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

let strangerKey: KeyObject | undefined;
/** An RSA key the service has never seen. */
function stranger(): KeyObject {
  strangerKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  return strangerKey;
}

/** A compact JWS over `header` and `payload`, signed as `how` says. */
function jws(
  header: Record<string, unknown>,
  payload: unknown,
  how: 'real' | 'stranger' | 'hmac-public-key' | 'none' | 'garbled',
  world: World,
) {
  const input = `${b64(header)}.${b64(payload)}`;
  const alg = String(header.alg);
  const digest = alg.endsWith('512') ? 'sha512' : alg.endsWith('384') ? 'sha384' : 'sha256';
  const key = createPrivateKey(world.signingKey);
  switch (how) {
    case 'none':
      return `${input}.`;
    case 'hmac-public-key': {
      const publicPem = key.export({ type: 'pkcs1', format: 'pem' }).toString();
      return `${input}.${createHmac(digest, publicPem).update(input).digest('base64url')}`;
    }
    case 'stranger':
      return `${input}.${sign(digest, Buffer.from(input), stranger()).toString('base64url')}`;
    case 'garbled': {
      const signature = sign(digest, Buffer.from(input), key).toString('base64url');
      return `${input}.${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    }
    default:
      return `${input}.${sign(digest, Buffer.from(input), key).toString('base64url')}`;
  }
}

/**
 * Tokens the service must refuse with 401 INVALID_ACCESS_TOKEN: each takes a good token's
 * header and claims and breaks at least one thing (the reasons say which).
 */
function forgedTokenArb(world: World): fc.Arbitrary<{ token: string; why: string }> {
  const other = world.tenants[1];
  const now = Math.floor(Date.now() / 1000);
  type Breakage = [string, (h: Record<string, unknown>, c: Record<string, unknown>) => void];
  const claimBreakages: Breakage[] = [
    ['expired', (_h, c) => Object.assign(c, { iat: now - 7200, exp: now - 60 })],
    ['not yet valid', (_h, c) => Object.assign(c, { nbf: now + 600 })],
    ['wrong issuer', (_h, c) => Object.assign(c, { iss: 'https://evil.example' })],
    ['wrong audience', (_h, c) => Object.assign(c, { aud: ['urn:other', 'x'] })],
    ['company of another tenant', (_h, c) => Object.assign(c, { company: other.companyId })],
    ['client of another tenant', (_h, c) => Object.assign(c, { sub: other.clients[0].clientId })],
    ['unknown client', (_h, c) => Object.assign(c, { sub: 'cli_0000000000000000000000' })],
    ['stale credential version', (_h, c) => Object.assign(c, { ver: Number(c.ver) + 1 })],
    ['version as text', (_h, c) => Object.assign(c, { ver: String(c.ver) })],
    ['scope as array', (_h, c) => Object.assign(c, { scope: [...ALL_SCOPES] })],
    ...['sub', 'company', 'scope', 'ver', 'jti', 'iat', 'exp'].map((claim): Breakage => [`no ${claim}`, (_h, c) => delete c[claim]]),
    ['wrong typ', (h) => Object.assign(h, { typ: 'JWT' })],
    ['no typ', (h) => delete h.typ],
    ['unknown kid', (h) => Object.assign(h, { kid: 'kid-of-nobody' })],
    ['no kid', (h) => delete h.kid],
    ['kid path', (h) => Object.assign(h, { kid: '../../../../dev/null' })],
    ['jku', (h) => Object.assign(h, { jku: 'https://evil.example/jwks', kid: 'evil' })],
  ];
  const signing: Array<['real' | 'stranger' | 'hmac-public-key' | 'none' | 'garbled', string, string]> = [
    ['real', 'RS256', ''],
    ['real', 'RS512', 'RS512 (not pinned)'],
    ['real', 'PS256', 'PS256 (not pinned)'],
    ['stranger', 'RS256', 'signed by an unknown key'],
    ['hmac-public-key', 'HS256', 'HS256 keyed with the public key'],
    ['none', 'none', 'alg none'],
    ['none', 'RS256', 'no signature'],
    ['garbled', 'RS256', 'signature altered'],
  ];
  const structured = fc
    .record({
      breakages: fc.subarray(claimBreakages, { minLength: 0, maxLength: 3 }),
      signing: fc.constantFrom(...signing),
      extra: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    })
    // Something is broken; and not both the client and the company swapped, which together make another tenant's good token.
    .filter(
      ({ breakages, signing: [, , why] }) =>
        (breakages.length > 0 || why !== '') && breakages.filter(([reason]) => / of another tenant$/.test(reason)).length < 2,
    )
    .map(({ breakages, signing: [how, alg, why], extra }) => {
      const header: Record<string, unknown> = { alg, typ: 'at+jwt', kid: world.kid };
      const claims: Record<string, unknown> = { ...extra, ...world.claims };
      for (const [, breakIt] of breakages) breakIt(header, claims);
      return { token: jws(header, claims, how, world), why: [...breakages.map(([reason]) => reason), why].filter(Boolean).join(', ') };
    });
  const junk = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9_.=+/~-]{1,300}$/).map((token) => ({ token, why: 'random token characters' })),
    fc.tuple(fc.jsonValue(), fc.jsonValue()).map(([h, p]) => ({ token: `${b64(h)}.${b64(p)}.${b64('sig')}`, why: 'random JSON segments' })),
    fc.constant({ token: `${world.tenants[0].tokens[0].token}x`, why: 'a good token with a character appended' }),
    fc.constant({ token: world.tenants[0].tokens[0].token.slice(0, -2), why: 'a good token cut short' }),
    fc.integer({ min: 4097, max: 7000 }).map((n) => ({ token: 'e'.repeat(n), why: 'too long' })),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 8 }).map((claims) => ({
      token: jws({ alg: 'RS256', typ: 'at+jwt', kid: world.kid }, claims, 'real', world),
      why: 'random claims, signed with the service key',
    })),
    fc
      .string({ maxLength: 12 })
      .filter((alg) => alg !== 'RS256')
      .map((alg) => ({
        token: jws({ alg, typ: 'at+jwt', kid: world.kid }, world.claims, 'real', world),
        why: `alg ${JSON.stringify(alg)}`,
      })),
  );
  return fc.oneof({ weight: 3, arbitrary: structured }, { weight: 1, arbitrary: junk });
}

export function authArb(world: World): fc.Arbitrary<Auth> {
  const valid = world.tenants.flatMap((tenant) =>
    tenant.tokens.map((t) => ({ tenant: tenant.name, apiAccess: tenant.apiAccess, scopes: t.scopes, token: t.token })),
  );
  // Most valid requests hold every scope that reads data, so that they reach validation and the data.
  const everyScope = valid.filter((v) => v.apiAccess && DATA_SCOPES.every((s) => v.scopes.includes(s)));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<Auth>({ kind: 'none' }) },
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...everyScope) }, { weight: 2, arbitrary: fc.constantFrom(...valid) }),
          fc.constantFrom('Bearer', 'Bearer', 'bearer', 'BEARER'),
        )
        .map(([v, scheme]): Auth => ({
          kind: 'valid',
          tenant: v.tenant,
          scopes: v.scopes,
          apiAccess: v.apiAccess,
          header: `${scheme} ${v.token}`,
        })),
    },
    { weight: 3, arbitrary: forgedTokenArb(world).map(({ token, why }): Auth => ({ kind: 'forged', header: `Bearer ${token}`, why })) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom('Bearer', 'Bearer ', 'Token abc', 'Basic', 'Basic Og==', 'Digest username="x"', 'Bearer a b', 'Bearer\tabc'),
          fc.constant(basicAuth(world.tenants[0].clients[0].clientId, world.tenants[0].clients[0].clientSecret)),
          PRINTABLE.filter((s) => !/^\s*bearer\s/i.test(s)),
        )
        .map((header): Auth => ({ kind: 'malformed', header })),
    },
  );
}

// --- headers that must not change the answer --------------------------------------------

const HEADER_NAME = fc
  .stringMatching(/^[a-z][a-z0-9-]{0,20}$/)
  .filter(
    (n) =>
      ![
        'authorization',
        'content-length',
        'transfer-encoding',
        'host',
        'connection',
        'expect',
        'upgrade',
        'content-encoding',
        'content-type',
      ].includes(n),
  );
const HEADER_VALUE = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });

/** Headers a client may add that must not change the answer of a `GET`. */
export const noiseHeadersArb: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      'x-request-id': fc.constantFrom('req_forged000000000000000000', 'attacker-chosen'),
      'x-forwarded-for': fc.oneof(fc.ipV4(), fc.ipV6(), HEADER_VALUE),
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', 'image/png;q=0.1'),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*'),
      'content-type': fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ),
      'if-none-match': fc.constantFrom('*', '"abc"', 'W/"x"'),
      'if-modified-since': fc.constant('Thu, 01 Jan 2099 00:00:00 GMT'),
      range: fc.constantFrom('bytes=0-10', 'bytes=-1', 'items=0-1'),
      origin: fc.constantFrom('https://evil.example', 'null'),
      cookie: HEADER_VALUE,
      'x-http-method-override': fc.constantFrom('DELETE', 'POST'),
      'x-original-url': fc.constantFrom('/v1/context', '/admin'),
    },
    { requiredKeys: [] },
  )
  .chain((known) => fc.dictionary(HEADER_NAME, HEADER_VALUE, { maxKeys: 2 }).map((random) => ({ ...random, ...known })));

// --- requests ---------------------------------------------------------------------------

/** A request to a `/v1` route, with the facts the oracle needs. */
export function v1RequestArb(world: World): fc.Arbitrary<{ request: GeneratedRequest; call: V1Call; auth: Auth }> {
  return fc.constantFrom(...V1_ROUTES).chain((route) =>
    fc
      .record({
        method: fc.oneof(
          { weight: 14, arbitrary: fc.constant('GET') },
          { weight: 1, arbitrary: fc.constant('HEAD') },
          { weight: 2, arbitrary: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') },
        ),
        auth: authArb(world),
        segments: segmentPairArb(world, route),
        // Routes without query parameters mostly get none, so that their requests reach the data.
        pairs: fc.oneof(
          { weight: route.query.length ? 1 : 3, arbitrary: fc.constant([]) },
          { weight: 2, arbitrary: fc.array(pairArb(route, world), { minLength: 1, maxLength: 3 }) },
        ),
        style: fc.constantFrom('plain', 'plain', 'plain', 'plain', 'upper', 'slash'),
        noise: oneIn(3, noiseHeadersArb),
        body: oneIn(10, fc.json({ maxDepth: 2 })),
      })
      .map(({ method, auth, segments: [segment, child], pairs, style, noise, body }) => {
        // Routes have one spelling: in upper case or with a trailing slash the path is unknown (the ids keep their case).
        const shape = route.path('\u0000', '\u0001');
        const path =
          (style === 'upper' ? shape.toUpperCase() : shape).replace('\u0000', segment.raw).replace('\u0001', child?.raw ?? '') +
          (style === 'slash' ? '/' : '');
        const query = pairs.join('&');
        const target = `${path}${query ? `?${query}` : ''}`;
        const headers: Record<string, string> = { ...(noise ?? {}) };
        if (auth.kind !== 'none') headers.authorization = auth.header;
        const id = route.param ? (segment.decoded ?? undefined) : undefined;
        const childId = child?.decoded ?? undefined;
        const call: V1Call = {
          route,
          method,
          auth,
          query: parsedQuery(query),
          id,
          owner: id === undefined ? undefined : world.pathIds.get(id),
          childId,
          childOwner: childId === undefined ? undefined : world.pathIds.get(childId),
          spelling: style as V1Call['spelling'],
        };
        return { request: { method, target, headers, body: body === null ? undefined : Buffer.from(body) }, call, auth };
      }),
  );
}

/** Paths no route serves. */
export function unknownPathArb(): fc.Arbitrary<string> {
  const segment = fc.oneof(
    ANY_TEXT.filter((s) => s.length > 0).map(encodeURIComponent),
    HOSTILE,
    fc.constantFrom('meetings', 'v1', 'x', 'token'),
  );
  return fc
    .tuple(
      fc.constantFrom(
        '/v1/',
        '/v2/',
        '/',
        '/oauth/',
        '/health/',
        '/v1/meetings/x/y/',
        '/v1/context/',
        '/oauth/token/',
        '/V1/EMAILS/a/b/',
        '/openapi.json/',
      ),
      fc.array(segment, { minLength: 1, maxLength: 3 }),
    )
    .map(([prefix, parts]) => prefix + parts.join('/'));
}

/** A content coding of the token body: a real one, one whose body is not what it says, or one nobody supports. */
export type Encoding = 'gzip' | 'br' | 'corrupt' | 'unsupported';

export interface TokenAttempt {
  request: GeneratedRequest;
  /** The form fields as the service parses them. */
  fields: Array<[string, string]>;
  /** The credentials of the Authorization header, when it is well-formed Basic. */
  basic?: { clientId: string; clientSecret: string };
  /** The media type, charset and encoding as sent, for the oracle. */
  mediaType: string;
  charset?: string;
  encoding?: Encoding;
  /** How many bytes the form has before any compression. */
  size: number;
}

/** A token request: the credentials of some client (right or wrong), in the body or with Basic, in some media type. */
export function tokenRequestArb(world: World): fc.Arbitrary<TokenAttempt> {
  const clients = world.tenants.flatMap((t) => t.clients);
  const credential = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...clients).map((c) => ({ clientId: c.clientId, clientSecret: c.clientSecret })) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...clients), fc.constantFrom(...clients))
        .filter(([a, b]) => a.clientId !== b.clientId)
        .map(([a, b]) => ({ clientId: a.clientId, clientSecret: b.clientSecret })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...clients)
        .chain((c) => mutatedId(c.clientSecret).map((s) => ({ clientId: c.clientId, clientSecret: s }))),
    },
    { weight: 1, arbitrary: fc.record({ clientId: ANY_TEXT, clientSecret: ANY_TEXT }) },
  );
  const scope = fc.oneof(
    fc.subarray([...ALL_SCOPES], { minLength: 1 }).map((s) => s.join(' ')),
    fc.subarray([...ALL_SCOPES, 'admin', 'meetings.write', 'MEETINGS.READ'], { minLength: 1 }).map((s) => s.join('  ')),
    ANY_TEXT,
  );
  return fc
    .record({
      credential,
      place: fc.constantFrom('body', 'body', 'basic', 'both', 'basic-with-id'),
      grant: fc.oneof(
        { weight: 8, arbitrary: fc.constant('client_credentials') },
        { weight: 1, arbitrary: fc.constantFrom('password', 'authorization_code', 'CLIENT_CREDENTIALS', '') },
      ),
      scope: fc.option(scope, { freq: 2 }),
      extras: fc.array(
        fc.tuple(fc.oneof(fc.constantFrom('grant_type', 'client_id', 'client_secret', 'scope', 'refresh_token', 'x'), ANY_TEXT), ANY_TEXT),
        { maxLength: 2 },
      ),
      manyFields: oneIn(20, fc.integer({ min: 33, max: 60 })),
      pad: oneIn(15, fc.integer({ min: 7000, max: 9500 })),
      mediaType: fc.oneof(
        { weight: 12, arbitrary: fc.constant('application/x-www-form-urlencoded') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'APPLICATION/X-WWW-FORM-URLENCODED',
            'application/json',
            'text/plain',
            'multipart/form-data; boundary=x',
            '',
            'application/x-www-form-urlencoded-x',
          ),
        },
      ),
      charset: oneIn(6, fc.constantFrom('utf-8', 'UTF-8', 'latin1', 'utf-16le', 'x-unknown')),
      encoding: oneIn(8, fc.constantFrom<Encoding>('gzip', 'br', 'corrupt', 'unsupported')),
      coding: fc.constantFrom('gzip', 'deflate', 'br', 'GZIP'),
      basicJunk: oneIn(15, fc.constantFrom('Basic', 'Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, 'Bearer abc')),
      method: fc.oneof(
        { weight: 20, arbitrary: fc.constant('POST') },
        { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'OPTIONS') },
      ),
      noise: oneIn(
        4,
        noiseHeadersArb.map(({ 'content-type': _ignored, ...rest }) => rest),
      ),
    })
    .map((g) => {
      const pairs: Array<[string, string]> = [['grant_type', g.grant]];
      const inBody = g.place === 'body' || g.place === 'both';
      if (inBody) pairs.push(['client_id', g.credential.clientId], ['client_secret', g.credential.clientSecret]);
      if (g.place === 'basic-with-id') pairs.push(['client_id', g.credential.clientId]);
      if (g.scope !== null) pairs.push(['scope', g.scope]);
      pairs.push(...g.extras);
      if (g.manyFields) for (let i = 0; i < g.manyFields; i++) pairs.push([`f${i}`, 'x']);
      if (g.pad) pairs.push(['padding', 'p'.repeat(g.pad)]);
      const form = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
      const headers: Record<string, string> = { ...(g.noise ?? {}) };
      const basic = g.place === 'body' ? undefined : g.credential;
      if (g.basicJunk) headers.authorization = g.basicJunk;
      else if (basic) headers.authorization = basicAuth(basic.clientId, basic.clientSecret);
      if (g.mediaType !== '') headers['content-type'] = g.charset ? `${g.mediaType}; charset=${g.charset}` : g.mediaType;
      let body = Buffer.from(form);
      if (g.encoding === 'gzip') [headers['content-encoding'], body] = ['gzip', gzipSync(body)];
      if (g.encoding === 'br') [headers['content-encoding'], body] = ['br', brotliCompressSync(body)];
      if (g.encoding === 'corrupt') headers['content-encoding'] = g.coding;
      if (g.encoding === 'unsupported') headers['content-encoding'] = 'x-compress';
      return {
        request: { method: g.method, target: '/oauth/token', headers, body },
        fields: parsedQuery(form),
        basic: g.basicJunk ? undefined : basic,
        mediaType: g.mediaType,
        charset: g.charset ?? undefined,
        encoding: g.encoding ?? undefined,
        size: Buffer.byteLength(form),
      };
    });
}

// --- sending ----------------------------------------------------------------------------

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** Sends generated requests as they are, over keep-alive connections. */
export class RawHttp {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });
  sent = 0;

  constructor(private readonly port: number) {}

  send(r: GeneratedRequest): Promise<Answer> {
    this.sent++;
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: this.port, method: r.method, path: r.target, headers: r.headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            // A compressed answer (the request accepted it) is checked as the client reads it.
            const wire = Buffer.concat(chunks);
            const coding = res.headers['content-encoding'];
            const text = (coding === 'gzip' ? gunzipSync(wire) : coding === 'br' ? brotliDecompressSync(wire) : wire).toString('utf8');
            let json: unknown;
            try {
              json = text ? JSON.parse(text) : undefined;
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          });
        },
      );
      req.on('error', reject);
      req.setTimeout(20_000, () => req.destroy(new Error(`no answer within 20 s to ${r.method} ${r.target.slice(0, 200)}`)));
      // Node's client omits Content-Length on a GET, DELETE or OPTIONS body: the server would read it as the next request.
      if (r.body) req.setHeader('content-length', r.body.length);
      req.end(r.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
