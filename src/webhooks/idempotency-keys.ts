import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { Sql } from '../database/owner-pool';
import { SigningKeys } from './webhook-secrets';

/** How long a key answers its first answer again. */
export const IDEMPOTENCY_HOURS = 24;

/** A request sent with an `Idempotency-Key`: who sent it, the key, what it asked, and how its answer is kept. */
export interface IdempotentRequest {
  clientId: string;
  key: string;
  /** The operation (`POST /v1/webhook-endpoints`): a key names one request of one operation. */
  operation: string;
  /** The request's body, hashed (requestHash): the same key with another body is refused. */
  hash: string;
  /** The answer as it is kept and answered again: its body's JSON text. */
  render(answer: unknown): string;
  /** The types of the endpoint a kept answer made (a repeat is answered only to a caller that reads them). */
  typesOf(answer: string): string[];
}

/**
 * Idempotency keys in PostgreSQL (table `idempotency_keys`, under row-level security), so a
 * repeat finds the first answer on any replica and after a restart. A key is taken inside the
 * transaction that does the work: a second request with the same key waits on the first's row
 * until it commits, then answers what it answered; if the first rolled back (it failed), the key
 * was never taken and the second does the work. Only a success is kept. The answer is sealed with
 * WEBHOOK_SECRET_KEY (it holds the endpoint's signing secret), bound to its company, client and
 * key. Kept 24 h: an older row is replaced by the next request with its key, and removed by
 * the worker's retention sweep.
 */
@Injectable()
export class IdempotencyKeys {
  constructor(private readonly keys: SigningKeys) {}

  /**
   * Takes the key for this request, or returns the first answer of an earlier one with the same
   * key and body (`409 IDEMPOTENCY_KEY_REUSED` with another body or operation).
   */
  async claim(sql: Sql, companyId: string, request: IdempotentRequest): Promise<string | null> {
    const taken = await sql.query(
      `INSERT INTO idempotency_keys AS k (company_id, client_id, key, operation, request_hash, answer)
       VALUES ($1, $2, $3, $4, $5, '')
       ON CONFLICT (company_id, client_id, key) DO UPDATE
         SET operation = excluded.operation, request_hash = excluded.request_hash, answer = '', created_at = now()
         WHERE k.created_at < now() - make_interval(hours => ${IDEMPOTENCY_HOURS})
       RETURNING 1`,
      [companyId, request.clientId, request.key, request.operation, request.hash],
    );
    if (taken.rowCount) return null;
    const earlier = await this.earlier(sql, companyId, request);
    // Taken by a request that has not committed: impossible here (the insert waited for it to end).
    if (earlier === null) throw new Error('an idempotency key was neither taken nor answered');
    return earlier;
  }

  /**
   * The first answer of an earlier request with this key in the last 24 h, or null when there was
   * none (or it has not committed yet: `claim` then waits for it); `409 IDEMPOTENCY_KEY_REUSED`
   * when that request had another body or operation. Read before the request is judged again, so
   * an exact repeat answers what the first one did even if its URL would be refused now.
   */
  async earlier(sql: Sql, companyId: string, request: IdempotentRequest): Promise<string | null> {
    const { rows } = await sql.query<{ operation: string; request_hash: string; answer: string }>(
      `SELECT operation, request_hash, answer FROM idempotency_keys
       WHERE company_id = $1 AND client_id = $2 AND key = $3 AND created_at >= now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`,
      [companyId, request.clientId, request.key],
    );
    const earlier = rows[0];
    if (!earlier) return null;
    if (earlier.operation !== request.operation || earlier.request_hash !== request.hash) {
      throw new ApiError(
        'IDEMPOTENCY_KEY_REUSED',
        `This Idempotency-Key was used in the last ${IDEMPOTENCY_HOURS} h for another request; use a new key for a new request.`,
      );
    }
    return this.keys.box.open(earlier.answer, boundTo(companyId, request));
  }

  /** Keeps the answer of the request that took the key (in the same transaction). */
  async complete(sql: Sql, companyId: string, request: IdempotentRequest, answer: string): Promise<void> {
    await sql.query('UPDATE idempotency_keys SET answer = $4 WHERE company_id = $1 AND client_id = $2 AND key = $3', [
      companyId,
      request.clientId,
      request.key,
      this.keys.box.seal(answer, boundTo(companyId, request)),
    ]);
  }
}

/** What a sealed answer is bound to: it opens only for the same company, client and key. */
const boundTo = (companyId: string, request: IdempotentRequest) => `idempotency:${companyId}:${request.clientId}:${request.key}`;
