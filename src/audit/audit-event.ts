import type { Request } from 'express';
import { ClsService } from 'nestjs-cls';
import { callerOf, RequestStore } from '../common/http/request-context';
import { SerializedBody } from '../common/http/json-text';
import { OAUTH_TOKEN_PATH } from '../common/http/request-surface.middleware';

/** One row of the trail: who, what, when, and for a successful read the ids it returned. */
export interface AuditEvent {
  occurredAt: Date;
  requestId: string;
  company: string | null;
  client: string | null;
  address: string | null;
  method: string;
  /** Route template, e.g. `GET /v1/meetings/{meeting_id}`; null for a path no route matched. */
  route: string | null;
  pathParams: Record<string, string>;
  /** The query parameters, without the cursor; values of anything named like a credential are redacted. */
  query: Record<string, unknown>;
  status: number;
  resourceIds: string[];
  /** True when the stored path parameters or query were cut to the documented bounds (AUDIT_LIMITS). */
  truncated: boolean;
  /** Requests the row stands for: more than one for failed authentication aggregated per address (audit-failures.ts). */
  attempts?: number;
}

/**
 * What one audit row stores of a client's request at most: each value (a path parameter, a
 * query value) 200 characters, 10 values per query name, 32 query names, and 4 KiB of query as
 * JSON. Anything cut is marked (`truncated`), so a row is never taken for the whole request.
 */
export const AUDIT_LIMITS = { value: 200, valuesPerName: 10, names: 32, queryJson: 4096 } as const;

/**
 * A request is audited when it addresses the API or the token endpoint (probes and
 * documentation are not): for an answered route, decided from the route the router matched,
 * never from how the path was spelled; for a refused request, from its surface (which the
 * router's own strict, case-sensitive matching agrees with).
 */
export function isAudited(req: Request): boolean {
  const template: unknown = req.route?.path;
  if (typeof template === 'string' && !template.includes('*')) return template === OAUTH_TOKEN_PATH || template.startsWith('/v1/');
  return req.surface === 'api' || req.surface === 'token';
}

const CREDENTIAL_LIKE = /token|secret|password|passwd|authorization|api[_-]?key|assertion/i;

/** The audit row of `req`, answered with `status`, from what the request context knows of the caller. */
export function auditEventOf(req: Request, cls: ClsService<RequestStore>, status: number, resourceIds: string[] = []): AuditEvent {
  const { principal, tokenSubject: subject } = callerOf(cls);
  const routePath: unknown = req.route?.path;
  const params = paramsOf(req.params);
  const query = queryOf(req.query);
  return {
    occurredAt: req.receivedAt ?? new Date(),
    requestId: req.requestId ?? 'req_unknown',
    company: principal?.companyPublicId ?? subject?.company ?? null,
    client: principal?.clientId ?? subject?.client ?? null,
    address: req.ip ?? req.socket?.remoteAddress ?? null,
    method: req.method,
    // The router's catch-all (`/{*path}`, which answers unknown paths) is no route.
    route: typeof routePath === 'string' && !routePath.includes('*') ? `${req.method} ${routePath.replace(/:(\w+)/g, '{$1}')}` : null,
    pathParams: params.pathParams,
    query: query.query,
    truncated: params.truncated || query.truncated,
    status,
    resourceIds,
  };
}

/** The ids a successful read returned: each item's `id`, else the record it belongs to (`meeting_id`). */
export function resourceIdsOf(body: unknown): string[] {
  if (body instanceof SerializedBody) return body.resourceIds;
  const data = (body as { data?: unknown } | null)?.data;
  const items = Array.isArray(data) ? data : data && typeof data === 'object' ? [data] : [];
  const ids: string[] = [];
  for (const item of items as Array<Record<string, unknown>>) {
    // A change feed entry names the object it tells about: that is what the client learned of.
    const id =
      typeof item.object_id === 'string'
        ? item.object_id
        : typeof item.id === 'string'
          ? item.id
          : typeof item.meeting_id === 'string'
            ? item.meeting_id
            : null;
    if (id) ids.push(id);
  }
  return ids;
}

/** The path parameters as stored, each value cut to its bound. */
function paramsOf(params: Request['params']): { pathParams: Record<string, string>; truncated: boolean } {
  let truncated = false;
  const entries = Object.entries(params ?? {}).map(([k, v]) => {
    const value = String(v);
    truncated ||= value.length > AUDIT_LIMITS.value;
    return [k, storable(value)] as const;
  });
  return { pathParams: Object.fromEntries(entries), truncated };
}

/**
 * The query as stored: without the cursor, credential-like values redacted, within AUDIT_LIMITS.
 * Built with `Object.fromEntries`, so a name such as `__proto__` is kept as a name (an assignment
 * would set the object's prototype and lose it).
 */
function queryOf(query: Request['query']): { query: Record<string, unknown>; truncated: boolean } {
  const entries: Array<[string, unknown]> = [];
  let truncated = false;
  let size = 2;
  for (const [key, value] of Object.entries(query ?? {})) {
    if (key === 'cursor') continue;
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    const stored = CREDENTIAL_LIKE.test(key)
      ? '[redacted]'
      : Array.isArray(value)
        ? values.slice(0, AUDIT_LIMITS.valuesPerName).map(storable)
        : storable(values[0]);
    const cut =
      key.length > AUDIT_LIMITS.value || values.length > AUDIT_LIMITS.valuesPerName || values.some((v) => v.length > AUDIT_LIMITS.value);
    const entry: [string, unknown] = [storable(key), stored];
    const entrySize = JSON.stringify(Object.fromEntries([entry])).length - 1;
    if (entries.length >= AUDIT_LIMITS.names || size + entrySize > AUDIT_LIMITS.queryJson) {
      truncated = true;
      break;
    }
    truncated ||= cut && !CREDENTIAL_LIKE.test(key);
    entries.push(entry);
    size += entrySize;
  }
  return { query: Object.fromEntries(entries), truncated };
}

/**
 * A client's text as the trail can hold it: PostgreSQL text and jsonb take no NUL character
 * (`%00` in a path or query) and jsonb no lone surrogate, and one row it refuses would fail
 * the whole batch it travels in. Both become U+FFFD; long values are cut.
 */
export function storable(value: string): string {
  const clean = Buffer.from(value, 'utf8').toString('utf8').replaceAll('\u0000', '\uFFFD');
  return clean.length > AUDIT_LIMITS.value ? `${clean.slice(0, AUDIT_LIMITS.value)}…` : clean;
}
