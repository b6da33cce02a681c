/**
 * What the contract says every route answers, written from the spec and API-DECISIONS.md
 * (not from the code), for the fuzzing e2e spec: the routes, their scopes, parameters and
 * listed error codes, and the answer a generated request must get.
 */
import type { Scope } from '../../src/contract/scopes';

/** The kinds of resource a path parameter names, and the id prefix of each (the spec's prefix table). */
export const PATH_KINDS = {
  meeting: 'mtg_',
  call: 'call_',
  email: 'eml_',
  chat: 'wa_',
  emailMessage: 'emsg_',
  chatMessage: 'wamsg_',
} as const;
export type PathKind = keyof typeof PATH_KINDS;

/** Any public id the API can print: how a response body is searched for records. */
export const PUBLIC_ID = /\b(?:mtg|call|usr|eml|emsg|wa|wamsg|acc|ans|qst|tpl|team|tag|ctr|cmp|cli|eval|skl)_[0-9A-Za-z]{22}\b/g;

export const LIST_PARAMS = ['limit', 'cursor'];
export const RECORDING_FILTERS = [
  'created_after',
  'created_before',
  'meeting_after',
  'meeting_before',
  'owner_email',
  'type',
  'audience',
  'has_transcript',
];
export const ACTIVITY_FILTERS = ['last_message_after', 'last_message_before'];
export const DATE_TIME_PARAMS = ['created_after', 'created_before', 'meeting_after', 'meeting_before', ...ACTIVITY_FILTERS];

export type Code =
  | 'INVALID_LIMIT'
  | 'INVALID_DATETIME'
  | 'INVALID_FILTER'
  | 'INVALID_CURSOR'
  | 'INVALID_REQUEST'
  | 'MISSING_ACCESS_TOKEN'
  | 'INVALID_ACCESS_TOKEN'
  | 'INSUFFICIENT_SCOPE'
  | 'API_ACCESS_DISABLED'
  | 'RESOURCE_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED';

/** API-DECISIONS.md "Error type values": the class of each status. */
export const ERROR_TYPE_OF_STATUS: Record<number, string> = {
  400: 'InvalidRequestError',
  401: 'AuthenticationError',
  403: 'ForbiddenError',
  404: 'NotFoundError',
  405: 'InvalidRequestError',
  413: 'PayloadTooLargeError',
  415: 'UnsupportedMediaTypeError',
};

export interface RouteModel {
  /** The OpenAPI path template. */
  template: string;
  param?: { name: string; kind: PathKind };
  /** A second path parameter, after the first: a record that must belong to the first one (a message of that conversation). */
  child?: { name: string; kind: PathKind };
  /** Every one of them is required. */
  scopes: Scope[];
  /** The content policy that governs the route besides `client` and `company` (the messages routes). */
  contentPolicy?: 'email_content' | 'chat_content';
  /** Query parameters the route accepts. */
  query: string[];
  /** The 400 codes the spec lists for the route (every route lists INVALID_REQUEST: unknown query parameters). */
  badRequest: Code[];
  /** A sub-resource a real parent may lack (404 for an existing id). */
  mayBeAbsent?: boolean;
  /** The path with the parameters' segments in place. */
  path(segment?: string, child?: string): string;
}

const LIST_CODES: Code[] = ['INVALID_LIMIT', 'INVALID_DATETIME', 'INVALID_FILTER', 'INVALID_CURSOR', 'INVALID_REQUEST'];

function recordingRoutes(collection: 'meetings' | 'calls', kind: 'meeting' | 'call', scope: Scope): RouteModel[] {
  const param = { name: `${kind}_id`, kind };
  const one = (suffix: string, extra: Partial<RouteModel> = {}): RouteModel => ({
    template: `/v1/${collection}/{${param.name}}${suffix}`,
    param,
    scopes: [scope],
    query: [],
    badRequest: ['INVALID_REQUEST'],
    path: (segment) => `/v1/${collection}/${segment}${suffix}`,
    ...extra,
  });
  return [
    {
      template: `/v1/${collection}`,
      scopes: [scope],
      query: [...LIST_PARAMS, ...RECORDING_FILTERS],
      badRequest: LIST_CODES,
      path: () => `/v1/${collection}`,
    },
    one(''),
    one('/evaluations/overall', { mayBeAbsent: true }),
    one('/answers'),
    // The transcript: JSON only, no parameter (`format` is unknown there).
    one('/transcript', { scopes: [scope, 'transcriptions.read'] }),
    // Its captions: `format` picks a rendition (another value: INVALID_FILTER); a transcript not available yet is a 404.
    one('/transcript/captions', {
      scopes: [scope, 'transcriptions.read'],
      mayBeAbsent: true,
      query: ['format'],
      badRequest: ['INVALID_REQUEST', 'INVALID_FILTER'],
    }),
  ];
}

function conversationRoutes(collection: 'emails' | 'chat', kind: 'email' | 'chat', scope: Scope, content: Scope): RouteModel[] {
  const param = { name: `${kind}_id`, kind };
  const contentPolicy = kind === 'email' ? 'email_content' : 'chat_content';
  return [
    {
      template: `/v1/${collection}`,
      scopes: [scope],
      query: [...LIST_PARAMS, ...ACTIVITY_FILTERS],
      badRequest: LIST_CODES,
      path: () => `/v1/${collection}`,
    },
    {
      template: `/v1/${collection}/{${param.name}}`,
      param,
      scopes: [scope],
      query: [],
      badRequest: ['INVALID_REQUEST'],
      path: (segment) => `/v1/${collection}/${segment}`,
    },
    {
      template: `/v1/${collection}/{${param.name}}/messages`,
      param,
      scopes: [scope, content],
      contentPolicy,
      query: LIST_PARAMS,
      badRequest: ['INVALID_LIMIT', 'INVALID_CURSOR', 'INVALID_REQUEST'],
      path: (segment) => `/v1/${collection}/${segment}/messages`,
    },
    {
      template: `/v1/${collection}/{${param.name}}/messages/{message_id}`,
      param,
      child: { name: 'message_id', kind: `${kind}Message` },
      scopes: [scope, content],
      contentPolicy,
      query: [],
      badRequest: ['INVALID_REQUEST'],
      path: (segment, child) => `/v1/${collection}/${segment}/messages/${child}`,
    },
  ];
}

/** Every `/v1` route of the spec. */
export const V1_ROUTES: RouteModel[] = [
  { template: '/v1/context', scopes: [], query: [], badRequest: ['INVALID_REQUEST'], path: () => '/v1/context' },
  ...recordingRoutes('meetings', 'meeting', 'meetings.read'),
  ...recordingRoutes('calls', 'call', 'calls.read'),
  ...conversationRoutes('emails', 'email', 'emails.read', 'emails.content.read'),
  ...conversationRoutes('chat', 'chat', 'chat.read', 'chat.content.read'),
];

/** Every query parameter name any route accepts. */
export const KNOWN_PARAMS = [...new Set(V1_ROUTES.flatMap((r) => r.query))];

/** How a generated request authenticates, and what the service must make of it. */
export type Auth =
  /** No Authorization header: 401 MISSING_ACCESS_TOKEN. */
  | { kind: 'none' }
  /** A token the service issued and that is still good, for `tenant`, with `scopes`. */
  | { kind: 'valid'; tenant: string; scopes: readonly string[]; apiAccess: boolean; header: string }
  /** A bearer token that must be refused: forged, tampered, expired, for a mismatched client… → 401 INVALID_ACCESS_TOKEN. */
  | { kind: 'forged'; header: string; why: string }
  /** No usable bearer credentials at all (another scheme, an empty token…): 401, either code. */
  | { kind: 'malformed'; header: string };

/** A status and the codes its envelope may carry. */
export type Outcome = Map<number, ReadonlySet<Code> | null>;

const outcome = (...entries: Array<[number, Code[] | null]>): Outcome =>
  new Map(entries.map(([status, codes]) => [status, codes && new Set(codes)]));

/** Adds `b`'s statuses and codes to `a`. */
function union(a: Outcome, b: Outcome): Outcome {
  const out: Outcome = new Map(a);
  for (const [status, codes] of b) {
    const mine = out.get(status);
    out.set(status, mine === undefined ? codes : mine && codes ? new Set([...mine, ...codes]) : null);
  }
  return out;
}

/** Who owns a path id, in which collection, and for a message the id of its conversation. */
export interface PathIdOwner {
  tenant: string;
  kind: PathKind;
  parent?: string;
}

export interface V1Call {
  route: RouteModel;
  method: string;
  auth: Auth;
  /** The query as the service parses it: each name with its values. */
  query: Array<[string, string]>;
  /** The decoded path parameter, when the route has one. */
  id?: string;
  /** Who owns `id`, and in which collection (undefined when no company owns it). */
  owner?: PathIdOwner;
  /** The decoded second path parameter, when the route has one (`route.child`). */
  childId?: string;
  /** Who owns `childId`, in which collection, and under which parent id. */
  childOwner?: PathIdOwner;
  /** How the path was spelled: routes have one spelling, so upper case or a trailing slash is an unknown path. */
  spelling?: 'plain' | 'upper' | 'slash';
}

/**
 * The answers the contract allows for `call`, in a healthy service with quotas no test
 * reaches (so never 429 or 503), following the order of checks of API-DECISIONS.md:
 * 405 → 401 → 403 API_ACCESS_DISABLED → 403 INSUFFICIENT_SCOPE → 400 → 404.
 */
export function expectedV1(call: V1Call): Outcome {
  const { route, auth } = call;
  if (call.spelling && call.spelling !== 'plain') return NOT_FOUND;
  if (call.method !== 'GET' && call.method !== 'HEAD') return outcome([405, ['METHOD_NOT_ALLOWED']]);
  if (auth.kind === 'none') return outcome([401, ['MISSING_ACCESS_TOKEN']]);
  if (auth.kind === 'forged') return outcome([401, ['INVALID_ACCESS_TOKEN']]);
  if (auth.kind === 'malformed') return outcome([401, ['MISSING_ACCESS_TOKEN', 'INVALID_ACCESS_TOKEN']]);
  if (!auth.apiAccess) return outcome([403, ['API_ACCESS_DISABLED']]);
  if (!route.scopes.every((s) => auth.scopes.includes(s))) return outcome([403, ['INSUFFICIENT_SCOPE']]);

  const names = call.query.map(([name]) => name);
  const unknown = names.some((n) => !route.query.includes(n));
  const repeated = new Set(names).size !== names.length;
  const empty = call.query.some(([, value]) => value === '');
  const invalid = outcome([400, route.badRequest]);
  if (unknown || repeated || empty) return invalid;

  const owned = (owner: PathIdOwner | undefined, kind: PathKind) => owner?.tenant === auth.tenant && owner.kind === kind;
  // A record under a parent is found only under its own parent: a message of another conversation is not.
  const childFound = !route.child || (owned(call.childOwner, route.child.kind) && call.childOwner?.parent === call.id);
  let found: Outcome;
  if (!route.param) found = outcome([200, null]);
  else if (owned(call.owner, route.param.kind) && childFound)
    found = route.mayBeAbsent ? outcome([200, null], [404, ['RESOURCE_NOT_FOUND']]) : outcome([200, null]);
  else found = outcome([404, ['RESOURCE_NOT_FOUND']]);
  // Known names with values the generator may have made invalid: a 400 of the route, or the answer.
  return call.query.length > 0 ? union(invalid, found) : found;
}

/** Paths the service has no route for: 404 RESOURCE_NOT_FOUND in the envelope. */
export const NOT_FOUND = outcome([404, ['RESOURCE_NOT_FOUND']]);

/** A known path asked with a method it does not serve. */
export const METHOD_NOT_ALLOWED = outcome([405, ['METHOD_NOT_ALLOWED']]);

/** Token endpoint: the RFC 6749 `error` (or the spec's code) each status may carry (API-DECISIONS.md). */
export const OAUTH_ERRORS: Record<number, string[]> = {
  400: ['invalid_request', 'unsupported_grant_type', 'invalid_scope'],
  401: ['invalid_client'],
  403: ['API_ACCESS_DISABLED'],
  405: ['METHOD_NOT_ALLOWED'],
  413: ['PAYLOAD_TOO_LARGE'],
  415: ['UNSUPPORTED_MEDIA_TYPE'],
};

export const describeOutcome = (o: Outcome) =>
  [...o].map(([status, codes]) => (codes ? `${status} ${[...codes].join('|')}` : String(status))).join(', ');
