import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import jwt from 'jsonwebtoken';
import { Pool, PoolClient } from 'pg';
import { CursorCodec } from '../src/common/cursors/cursor-codec';
import { limitClause, Params } from '../src/database/sql';
import { recordingDocuments, RecordingDocumentRow } from '../src/recordings/recording.sql';

/**
 * Bench only, never deployed: the raw anchor. A minimal `node:http` + `pg` server that does the
 * essential work of `GET /v1/meetings/{id}` and `GET /v1/meetings?limit&cursor` on the same data
 * with no framework: verify the bearer token (RS256, issuer, audience), check the client's
 * current state in the database, open the tenant's read-only transaction, run the service's
 * own statement (recording.sql.ts), write the same JSON envelope, and commit the audit row in
 * batches before answering (fail-closed, as the service). What it skips is listed in
 * docs/BENCHMARKS.md: the ratio of the service to it is the price of everything else.
 */

const ISSUER = 'urn:conversation-read-api';
const AUDIENCE = 'urn:conversation-read-api:v1';
const SCOPE = 'meetings.read';
const env = process.env;
const publicKey = createPublicKey(createPrivateKey(env.JWT_PRIVATE_KEY!));
const codec = new CursorCodec(env.CURSOR_SECRET!);
const pool = new Pool({ connectionString: env.DATABASE_URL, max: Number(env.DB_POOL_SIZE ?? 10) });
const auditPool = new Pool({ connectionString: env.AUDIT_DATABASE_URL ?? env.DATABASE_URL, max: 5 });

interface ClientState {
  company_id: string;
  company_public_id: string;
  api_access: boolean;
  status: string;
  scopes: string[];
  credential_version: number;
}

interface Claims {
  sub: string;
  company: string;
  scope: string;
  ver: number;
}

class Refused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

interface Caller {
  company: string;
  companyPublicId: string;
  client: string;
}

/** The caller, or Refused: the token's signature and claims, then the client's state now. */
async function authenticate(req: IncomingMessage): Promise<Caller> {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Bearer ')) throw new Refused(401, 'MISSING_ACCESS_TOKEN');
  let claims: Claims;
  try {
    claims = jwt.verify(header.slice(7), publicKey, { algorithms: ['RS256'], issuer: ISSUER, audience: AUDIENCE }) as Claims;
  } catch {
    throw new Refused(401, 'INVALID_ACCESS_TOKEN');
  }
  const { rows } = await pool.query<ClientState>({ name: 'state', text: 'SELECT * FROM app_client_state($1)', values: [claims.sub] });
  const state = rows[0];
  if (!state || state.status !== 'active' || state.credential_version !== claims.ver || state.company_public_id !== claims.company) {
    throw new Refused(401, 'INVALID_ACCESS_TOKEN');
  }
  if (!state.api_access) throw new Refused(403, 'API_ACCESS_DISABLED');
  if (!claims.scope.split(' ').includes(SCOPE) || !state.scopes.includes(SCOPE)) throw new Refused(403, 'INSUFFICIENT_SCOPE');
  return { company: state.company_id, companyPublicId: claims.company, client: claims.sub };
}

/** The statement's rows in the tenant's read-only transaction, as the service runs it. */
async function inTenant(company: string, text: string, values: unknown[]): Promise<RecordingDocumentRow[]> {
  const client: PoolClient = await pool.connect();
  try {
    await client.query(
      `BEGIN READ ONLY; SELECT set_config('app.company_id', '${company}', true), set_config('plan_cache_mode', 'force_generic_plan', true)`,
    );
    const { rows } = await client.query<RecordingDocumentRow>({ name: `q${text.length}`, text, values });
    await client.query('COMMIT');
    return rows;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

interface AuditRow {
  at: Date;
  requestId: string;
  caller: Caller;
  address: string | undefined;
  route: string;
  ids: string[];
  done: (error?: Error) => void;
}
let pending: AuditRow[] = [];
let flushing = false;

/** Group commit: what arrives while a batch is written goes in the next one. Resolves once the row is committed. */
function audit(row: Omit<AuditRow, 'done'>): Promise<void> {
  return new Promise((resolve, reject) => {
    pending.push({ ...row, done: (error) => (error ? reject(error) : resolve()) });
    if (!flushing) setImmediate(flush);
  });
}

async function flush(): Promise<void> {
  if (flushing || !pending.length) return;
  flushing = true;
  const batch = pending;
  pending = [];
  try {
    await auditPool.query({
      name: 'audit',
      text: `INSERT INTO audit_events
          (occurred_at, request_id, company, client, address, method, route, path_params, query, status, resource_ids, truncated)
        SELECT t, r, co, cl, a, 'GET', route, '{}', '{}', 200, ids, false
        FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[]) AS u(t, r, co, cl, a, route, ids)`,
      values: [
        batch.map((b) => b.at),
        batch.map((b) => b.requestId),
        batch.map((b) => b.caller.companyPublicId),
        batch.map((b) => b.caller.client),
        batch.map((b) => b.address),
        batch.map((b) => b.route),
        batch.map((b) => JSON.stringify(b.ids)),
      ],
    });
    for (const b of batch) b.done();
  } catch (error) {
    for (const b of batch) b.done(error as Error);
  } finally {
    flushing = false;
    if (pending.length) setImmediate(flush);
  }
}

function send(res: ServerResponse, status: number, requestId: string, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-request-id': requestId,
  });
  res.end(body);
}

const MEETING = /^\/v1\/meetings\/(mtg_[0-9A-Za-z]{22})$/;

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = `req_${randomBytes(16).toString('base64url')}`;
  const at = new Date();
  const url = new URL(req.url ?? '/', 'http://anchor');
  if (url.pathname === '/health/ready') return send(res, 200, requestId, '{"status":"ok"}');
  try {
    const one = MEETING.exec(url.pathname);
    if (req.method !== 'GET' || (!one && url.pathname !== '/v1/meetings')) throw new Refused(404, 'NOT_FOUND');
    const caller = await authenticate(req);
    const { company } = caller;
    let body: string;
    let ids: string[];
    let route: string;
    if (one) {
      route = 'GET /v1/meetings/{meeting_id}';
      const records = 'SELECT r.* FROM recordings r WHERE r.company_id = $1 AND r.kind = $2 AND r.public_id = $3';
      const [row] = await inTenant(company, recordingDocuments('meeting', records), [company, 'meeting', one[1]]);
      if (!row) throw new Refused(404, 'NOT_FOUND');
      body = `{"data":${row.document},"request_id":"${requestId}"}`;
      ids = [row.public_id];
    } else {
      route = 'GET /v1/meetings';
      const limit = Number(url.searchParams.get('limit') ?? 20);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new Refused(400, 'INVALID_PARAMETER');
      const binding = { route, company, filters: {} };
      const p = new Params();
      const where = [`r.company_id = ${p.add(company)}`, `r.kind = ${p.add('meeting')}`];
      const cursor = url.searchParams.get('cursor');
      if (cursor) where.push(p.after('r.created_at', 'r.id', codec.open(cursor, binding) as [string, string]));
      const records = `SELECT r.* FROM recordings r WHERE ${where.join(' AND ')} ORDER BY r.created_at, r.id ${limitClause(limit + 1)}`;
      const rows = await inTenant(company, recordingDocuments('meeting', records), p.values);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const more = rows.length > limit;
      const next = more ? JSON.stringify(codec.seal(binding, [last.created_micros, last.id])) : 'null';
      body = `{"data":[${page.map((r) => r.document).join(',')}],"pagination":{"limit":${limit},"has_more":${more},"next_cursor":${next}},"request_id":"${requestId}"}`;
      ids = page.map((r) => r.public_id);
    }
    await audit({ at, requestId, caller, address: req.socket.remoteAddress, route, ids });
    send(res, 200, requestId, body);
  } catch (error) {
    const status = error instanceof Refused ? error.status : 500;
    const code = error instanceof Refused ? error.code : 'INTERNAL_ERROR';
    send(res, status, requestId, `{"error":{"code":"${code}"},"request_id":"${requestId}"}`);
  }
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => void handle(req, res));
server.listen(Number(env.PORT ?? 3000), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => void Promise.all([pool.end(), auditPool.end()]).then(() => process.exit(0))));
