import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A conversation's activity columns (`first_message_at`, `last_message_at`,
 * `last_message_direction`, and an email conversation's `message_count` and `has_attachments`)
 * are recounted from its messages after each insert of messages. The recount read the messages
 * its statement could see: two transactions adding messages to one conversation at once could
 * leave it with the older one's values (the second waited for the first's row lock, then wrote
 * a count taken before the first had committed: `last_message_at` 10:00 beside a message sent at
 * 10:05). Each function now locks the conversations first; the recount that follows is a new
 * statement, so under READ COMMITTED it sees every message committed before the lock was granted.
 */
export class ConversationActivityLock1764900000000 implements MigrationInterface {
  name = 'ConversationActivityLock1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE OR REPLACE FUNCTION email_messages_arrived() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM email_conversations c WHERE c.id IN (SELECT DISTINCT conversation_id FROM arrived) ORDER BY c.id FOR NO KEY UPDATE;
        UPDATE email_conversations c
          SET message_count = s.n, first_message_at = s.first_at, last_message_at = s.last_at,
              has_attachments = s.has_attachments, last_message_direction = s.last_direction
          FROM (
            SELECT m.conversation_id, count(*) AS n, min(m.sent_at) AS first_at, max(m.sent_at) AS last_at,
              bool_or(jsonb_array_length(m.attachments) > 0) AS has_attachments,
              (array_agg(m.direction ORDER BY m.sent_at DESC, m.id DESC))[1] AS last_direction
            FROM email_messages m
            WHERE m.conversation_id IN (SELECT DISTINCT conversation_id FROM arrived)
            GROUP BY m.conversation_id
          ) s
          WHERE c.id = s.conversation_id;
        -- Participants in order of first appearance: sender, then To, then Cc.
        INSERT INTO email_participants (company_id, conversation_id, address, name, internal)
          SELECT m.company_id, m.conversation_id, e.value->>'address', e.value->>'name', coalesce((e.value->>'internal')::boolean, false)
          FROM arrived m
          CROSS JOIN LATERAL (
            SELECT m.sender AS value, 0 AS list, 0::bigint AS position
            UNION ALL SELECT value, 1, position FROM jsonb_array_elements(m.recipients_to) WITH ORDINALITY AS x(value, position)
            UNION ALL SELECT value, 2, position FROM jsonb_array_elements(m.recipients_cc) WITH ORDINALITY AS x(value, position)
          ) e
          ORDER BY m.sent_at, m.id, e.list, e.position
          ON CONFLICT (conversation_id, lower(address)) DO NOTHING;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE OR REPLACE FUNCTION chat_messages_arrived() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM chat_conversations c WHERE c.id IN (SELECT DISTINCT conversation_id FROM arrived) ORDER BY c.id FOR NO KEY UPDATE;
        UPDATE chat_conversations c
          SET first_message_at = s.first_at, last_message_at = s.last_at, last_message_direction = s.last_direction
          FROM (
            SELECT m.conversation_id, min(m.sent_at) AS first_at, max(m.sent_at) AS last_at,
              (array_agg(m.direction ORDER BY m.sent_at DESC, m.id DESC))[1] AS last_direction
            FROM chat_messages m
            WHERE m.conversation_id IN (SELECT DISTINCT conversation_id FROM arrived)
            GROUP BY m.conversation_id
          ) s
          WHERE c.id = s.conversation_id;
        RETURN NULL;
      END $$`);
  }

  async down(): Promise<void> {
    // The previous bodies had the race; there is nothing worth restoring.
  }
}
