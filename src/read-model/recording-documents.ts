import { OwnerPool, Sql } from '../database/owner-pool';
import { DOCUMENT_FORMAT, renderDocuments } from '../recordings/recording.sql';
import { RECORDING_KINDS } from '../recordings/recording.vocabulary';
import { DocumentRefresher, ReadModelDescriptor } from './document-refresher';

/** Documents one refresher transaction renders at most. */
export const REFRESH_BATCH = 200;

/** The read model of meetings and calls (recording_documents, see its migration), rendered by PostgreSQL (recording.sql.ts). */
export const RECORDING_DOCUMENTS: ReadModelDescriptor = {
  table: 'recording_documents',
  key: 'recording_id',
  format: DOCUMENT_FORMAT,
  source: 'recordings',
  async render(client: Sql, ids: string[]): Promise<number> {
    let rendered = 0;
    for (const kind of RECORDING_KINDS) {
      const { rowCount } = await client.query(
        `UPDATE recording_documents d SET document = x.document, evaluation = x.evaluation, answers = x.answers, transcript = x.transcript, format = $2
         FROM (${renderDocuments(kind)}) x WHERE d.recording_id = x.id`,
        [ids, DOCUMENT_FORMAT],
      );
      rendered += rowCount ?? 0;
    }
    return rendered;
  },
};

/** The refresher of meetings' and calls' documents. */
export const recordingDocumentRefresher = (db: OwnerPool) => new DocumentRefresher(db, [RECORDING_DOCUMENTS], REFRESH_BATCH);
