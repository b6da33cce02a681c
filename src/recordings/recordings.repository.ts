import { Injectable } from '@nestjs/common';
import { TimeIdPosition } from '../common/cursors/keyset-page';
import { limitClause, pageOf, Params } from '../database/sql';
import { TenantTransaction } from '../database/tenant-transaction';
import { ListRecordingsQuery } from './list-recordings.query';
import { partStatement, RecordingDocumentRow, recordingDocuments, RecordingPartRow } from './recording.sql';
import { RecordingKind, RecordingPart } from './recording.vocabulary';

/**
 * Reads of meetings and calls, inside the request's tenant transaction. Every statement
 * filters by the company itself (row-level security is the second wall) and by the kind, so
 * a meeting id never answers on the calls routes.
 */
@Injectable()
export class RecordingsRepository {
  constructor(private readonly tenant: TenantTransaction) {}

  /**
   * `take` records after `after` in `(created_at, id)` order, matching the filters, in one
   * statement: an index ending in `(created_at, id)` is walked in order and stops after `take`
   * matches, and the relations are read for those rows only. With `owner_email` the page's ids
   * come first: each matching user's records are walked in order through
   * `(company_id, kind, owner_id, created_at, id)`, at most `take` per user, then the relations
   * are read for the page; so the cost does not grow with how many records the owner has (a
   * semi-join on the owner made PostgreSQL sort all of them, with their relations, first).
   */
  async listPage(
    companyId: string,
    kind: RecordingKind,
    query: ListRecordingsQuery,
    after: TimeIdPosition | null,
    take: number,
    parts: readonly RecordingPart[] = [],
  ): Promise<RecordingDocumentRow[]> {
    const p = new Params();
    const company = p.add(companyId);
    const where = [`r.company_id = ${company}`, `r.kind = ${p.add(kind)}`];
    if (query.created_after) where.push(`r.created_at > ${p.add(query.created_after.iso)}::timestamptz`);
    if (query.created_before) where.push(`r.created_at < ${p.add(query.created_before.iso)}::timestamptz`);
    if (query.meeting_after) where.push(`r.meeting_at > ${p.add(query.meeting_after.iso)}::timestamptz`);
    if (query.meeting_before) where.push(`r.meeting_at < ${p.add(query.meeting_before.iso)}::timestamptz`);
    if (query.type) where.push(`r.media_type = ${p.add(query.type)}`);
    if (query.audience) where.push(`r.audience = ${p.add(query.audience)}`);
    if (query.has_transcript !== undefined) where.push(`(r.transcript_status = 'completed') = ${p.add(query.has_transcript)}`);
    if (query.ids) where.push(`r.public_id = ANY (${p.add(query.ids)}::text[])`);
    if (after) where.push(p.after('r.created_at', 'r.id', after));
    const limit = limitClause(take);
    if (!query.owner_email) {
      const records = `SELECT r.* FROM recordings r WHERE ${where.join(' AND ')} ORDER BY r.created_at, r.id ${limit}`;
      return this.tenant.query<RecordingDocumentRow>(recordingDocuments(kind, records, parts, p.add(take)), p.values);
    }
    // The per-user LIMIT stays a parameter on purpose: a generic plan then expects to read a
    // few rows of each user and walks the owner index in order; with the literal page size it
    // estimated that fewer rows than a page match, and read and sorted all of the owner's.
    const ids = `SELECT o.id FROM users ou
      CROSS JOIN LATERAL (
        SELECT r.id, r.created_at FROM recordings r WHERE ${where.join(' AND ')} AND r.owner_id = ou.id
        ORDER BY r.created_at, r.id LIMIT ${p.add(take)}
      ) o
      WHERE ou.company_id = ${company} AND lower(ou.email) = ${p.add(query.owner_email)}
      ORDER BY o.created_at, o.id ${limit}`;
    const records = `SELECT r.* FROM recordings r WHERE r.company_id = ${company} AND r.id IN (${ids})`;
    return this.tenant.query<RecordingDocumentRow>(recordingDocuments(kind, records, parts, p.add(take)), p.values);
  }

  async findOne(
    companyId: string,
    kind: RecordingKind,
    publicId: string,
    parts: readonly RecordingPart[] = [],
  ): Promise<RecordingDocumentRow | null> {
    const [row] = await this.tenant.query<RecordingDocumentRow>(
      recordingDocuments(kind, 'SELECT r.* FROM recordings r WHERE r.company_id = $1 AND r.kind = $2 AND r.public_id = $3', parts),
      [companyId, kind, publicId],
    );
    return row ?? null;
  }

  /**
   * Up to `take` records of the company and kind after `after` in id order (byte order), for the
   * export stream (an index range scan: recordings_export), rendered as the list renders them.
   */
  async exportPage(
    companyId: string,
    kind: RecordingKind,
    after: string | null,
    take: number,
    parts: readonly RecordingPart[] = [],
  ): Promise<RecordingDocumentRow[]> {
    const records = `SELECT r.* FROM recordings r WHERE r.company_id = $1 AND r.kind = $2 AND r.public_id COLLATE "C" > $3
      ORDER BY r.public_id COLLATE "C" ${limitClause(take)}`;
    const rows = await this.tenant.query<RecordingDocumentRow>(recordingDocuments(kind, records, parts), [companyId, kind, after ?? '']);
    // The documents statement returns its rows in (created_at, id) order: back to id order before
    // the extra row (the fetch size's) is dropped, or a record in the middle would be.
    return pageOf(
      rows.sort((a, b) => (a.public_id < b.public_id ? -1 : 1)),
      take,
    );
  }

  /** One part of a record of the company and kind, as its own route answers it; null when there is no such record. */
  async part(companyId: string, kind: RecordingKind, publicId: string, part: RecordingPart): Promise<RecordingPartRow | null> {
    const [row] = await this.tenant.query<RecordingPartRow>(partStatement(part), [companyId, kind, publicId]);
    return row ?? null;
  }
}
