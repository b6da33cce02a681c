/**
 * The read model (`recording_documents`, `conversation_documents`), emptied by the entries
 * themselves, in the writing transaction, so that a served document is never older than the
 * tables. Literal SQL, as capture.sql shows it.
 */
import { CHANNELS, EPOCH } from './capture-builders';

/**
 * Every entry of this transaction for a meeting or a call empties that record's document (or
 * adds an empty one); the document of a record that no longer exists goes. Entries of this
 * transaction only: compaction rewrites old entries and changes nothing shown.
 */
export const DOCUMENTS = `CREATE OR REPLACE FUNCTION app_recording_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO recording_documents AS d (recording_id, company_id)
    SELECT DISTINCT e.object_key, e.company_id FROM entries e
    WHERE e.object IN ('meeting', 'call') AND e.action <> 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = ${EPOCH}
    -- Locked in key order: two statements that lock many documents take them in the same order.
    ORDER BY e.object_key
    -- An empty document is left as it is, but locked all the same (ON CONFLICT locks the row
    -- whatever its WHERE says), so the refresher cannot fill it before this transaction ends.
    -- A record moved to another company takes its document with it (row-level security reads it by company).
    ON CONFLICT (recording_id) DO UPDATE SET document = NULL, format = NULL, company_id = EXCLUDED.company_id
      WHERE d.document IS NOT NULL OR d.company_id <> EXCLUDED.company_id;
  -- A record deleted from one route may live on in another (a meeting made a call): only a
  -- record whose row is gone loses its document.
  DELETE FROM recording_documents d USING entries e
    WHERE e.object IN ('meeting', 'call') AND e.action = 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = ${EPOCH}
      AND d.recording_id = e.object_key AND NOT EXISTS (SELECT 1 FROM recordings r WHERE r.id = e.object_key);
  RETURN NULL;
END $$`;

/**
 * The same for e-mail and chat conversations (conversation_documents): an entry for a
 * conversation, or for one of its messages (its parent: the conversation it is in now), empties
 * that conversation's document or adds an empty one; the document of a conversation whose row
 * is gone goes. A message that moved empties both conversations: each has its own `messages`
 * entry.
 *
 * Emptying clears `format` too: the channel's `documentFormat` (src/conversations/conversation-channel.ts,
 * a hash of its statements and presenters' source). The migration that made the table
 * (1766200000000-conversation-documents) calls it "the format of the presenters that rendered it
 * (conversation-documents.ts)"; it means that, no file had the name.
 */
export const CONVERSATION_DOCUMENTS = `CREATE OR REPLACE FUNCTION app_conversation_documents_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO conversation_documents AS d (channel, conversation_id, company_id)
    SELECT DISTINCT x.channel, x.id, x.company_id FROM (
      SELECT e.object AS channel, e.object_key AS id, e.company_id FROM entries e
        WHERE e.object IN ('email', 'chat') AND e.action <> 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = ${EPOCH}
${CHANNELS.map(
  (channel) => `      UNION ALL SELECT '${channel}', c.id, c.company_id FROM entries e
        JOIN ${channel}_conversations c ON c.company_id = e.company_id AND c.public_id = e.parent_id
        WHERE e.object = '${channel}_message' AND e.xid = pg_current_xact_id() AND e.epoch = ${EPOCH}`,
).join('\n')}
    ) x
    ORDER BY x.channel, x.id
    -- As for the recordings: locked in key order; an empty document is left as it is but locked, and a conversation
    -- moved to another company takes its document with it.
    ON CONFLICT (channel, conversation_id) DO UPDATE SET document = NULL, messages = NULL, format = NULL, company_id = EXCLUDED.company_id
      WHERE d.document IS NOT NULL OR d.company_id <> EXCLUDED.company_id;
  DELETE FROM conversation_documents d USING entries e
    WHERE e.object IN ('email', 'chat') AND e.action = 'deleted' AND e.xid = pg_current_xact_id() AND e.epoch = ${EPOCH}
      AND d.channel = e.object AND d.conversation_id = e.object_key
${CHANNELS.map(
  (channel) => `      AND NOT (e.object = '${channel}' AND EXISTS (SELECT 1 FROM ${channel}_conversations c WHERE c.id = e.object_key))`,
).join('\n')};
  RETURN NULL;
END $$`;
