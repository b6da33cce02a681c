import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The read model of e-mail and chat conversations, like the recordings' (recording_documents):
 * each conversation's JSON text as its routes show it (`document`) and its messages as
 * `include=messages` embeds them (`messages`, a JSON array in the messages route's order),
 * stored, so that a page or an export of conversations with their messages passes stored text
 * through instead of reading and presenting every message (docs/BENCHMARKS.md: about 38 µs of
 * the service's CPU per message).
 *
 * Kept current by the change capture (the trigger function is installed by the next migration,
 * from src/changes/capture-sql.ts): every entry for a conversation or one of its messages, in the
 * writing transaction, empties that conversation's row or adds an empty one; a removed
 * conversation's row goes. Readers use a row only when it is filled and of their format, and
 * render live otherwise. The refresher (ConversationDocumentRefresher, in the worker) fills
 * them under the same locking rule as the recordings' refresher.
 */
export class ConversationDocuments1766200000000 implements MigrationInterface {
  name = 'ConversationDocuments1766200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE conversation_documents (
        channel text NOT NULL CHECK (channel IN ('email', 'chat')),
        conversation_id bigint NOT NULL,
        company_id bigint NOT NULL,
        -- The format of the presenters that rendered it (conversation-documents.ts); NULL while empty.
        format integer,
        -- The conversation's JSON text; NULL: to be rendered (readers render it live meanwhile).
        document text,
        -- Its messages' JSON array text, written with the document.
        messages text,
        PRIMARY KEY (channel, conversation_id),
        CHECK ((format IS NULL) = (document IS NULL) AND (document IS NULL) = (messages IS NULL))
      )`);
    // What the refresher looks for: empty documents, and documents of another format.
    await q.query('CREATE INDEX conversation_documents_empty ON conversation_documents (channel, conversation_id) WHERE document IS NULL');
    await q.query('CREATE INDEX conversation_documents_format ON conversation_documents (format, channel, conversation_id)');
    await q.query(`SELECT app_enable_tenant_rls('conversation_documents', 'company_id')`);
    // Every conversation there is now: an empty document each, for the refresher to fill.
    await q.query(`INSERT INTO conversation_documents (channel, conversation_id, company_id)
      SELECT 'email', id, company_id FROM email_conversations
      UNION ALL SELECT 'chat', id, company_id FROM chat_conversations`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE conversation_documents');
  }
}
