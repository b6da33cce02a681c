import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Email and chat conversations with their messages.
 *
 * Email: one conversation per thread, whatever the number of the company's mailboxes that
 * captured it. `thread_key` is the thread identity of RFC 5322 (the first `References` id,
 * else `In-Reply-To`, else the message's own `Message-ID`; see src/emails/email-thread.ts)
 * and is unique per company; a message is unique per company by its `Message-ID`, so the
 * copy a second mailbox captures adds that mailbox to the conversation, not a message.
 *
 * Chat: one conversation per chat of a seller (`chat_key`, the contact's number or the
 * group's id, unique per seller).
 *
 * A conversation's activity columns (first/last message instants, last direction, count,
 * attachments, email participants) are derived from its messages by statement-level
 * triggers on INSERT, so no writer can make them disagree. They fire on INSERT only: an
 * edit or a deletion of a message does not move `last_message_at`, as the spec requires.
 *
 * Indexes:
 * - email_conversations_activity_idx, chat_conversations_activity_idx
 *   `(company_id, last_message_at, id)`: `GET /v1/emails|chat`, whose order is the keyset
 *   and whose `last_message_after/before` filters are ranges on it;
 * - email_messages_page_idx, chat_messages_page_idx `(conversation_id, sent_at, id)`:
 *   the messages routes' keyset;
 * - every link table's primary key leads with the conversation, for the per-row subqueries.
 *
 * Tenant tables under forced RLS with composite `(company_id, x_id)` foreign keys, as for
 * recordings.
 */
export class Conversations1764100000000 implements MigrationInterface {
  name = 'Conversations1764100000000';

  async up(q: QueryRunner): Promise<void> {
    const statements = [
      `CREATE TABLE mailboxes (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        company_id bigint NOT NULL REFERENCES companies (id),
        address text NOT NULL,
        owner_id bigint,
        UNIQUE (company_id, id),
        FOREIGN KEY (company_id, owner_id) REFERENCES users (company_id, id)
      )`,
      `CREATE UNIQUE INDEX mailboxes_address_idx ON mailboxes (company_id, lower(address))`,
      `CREATE TABLE email_conversations (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL REFERENCES companies (id),
        thread_key text NOT NULL,
        subject text NOT NULL,
        first_message_at timestamptz NOT NULL,
        last_message_at timestamptz NOT NULL,
        message_count integer NOT NULL DEFAULT 0 CHECK (message_count >= 0),
        has_attachments boolean NOT NULL DEFAULT false,
        last_message_direction text NOT NULL CHECK (last_message_direction IN ('inbound', 'outbound')),
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (company_id, thread_key),
        UNIQUE (company_id, id),
        CHECK (first_message_at <= last_message_at)
      )`,
      `CREATE INDEX email_conversations_activity_idx ON email_conversations (company_id, last_message_at, id)`,
      `CREATE TABLE email_conversation_mailboxes (
        company_id bigint NOT NULL,
        conversation_id bigint NOT NULL,
        mailbox_id bigint NOT NULL,
        PRIMARY KEY (conversation_id, mailbox_id),
        FOREIGN KEY (company_id, conversation_id) REFERENCES email_conversations (company_id, id) ON DELETE CASCADE,
        FOREIGN KEY (company_id, mailbox_id) REFERENCES mailboxes (company_id, id)
      )`,
      `CREATE TABLE email_participants (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        company_id bigint NOT NULL,
        conversation_id bigint NOT NULL,
        address text NOT NULL,
        name text,
        internal boolean NOT NULL,
        FOREIGN KEY (company_id, conversation_id) REFERENCES email_conversations (company_id, id) ON DELETE CASCADE
      )`,
      `CREATE UNIQUE INDEX email_participants_address_idx ON email_participants (conversation_id, lower(address))`,
      accountLinks('email'),
      `CREATE TABLE email_messages (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL,
        conversation_id bigint NOT NULL,
        message_id text NOT NULL,
        sent_at timestamptz NOT NULL,
        direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
        subject text NOT NULL,
        snippet text NOT NULL,
        body_text text NOT NULL,
        sender jsonb NOT NULL CHECK (jsonb_typeof(sender) = 'object'),
        recipients_to jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(recipients_to) = 'array'),
        recipients_cc jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(recipients_cc) = 'array'),
        attachments jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(attachments) = 'array'),
        UNIQUE (company_id, message_id),
        FOREIGN KEY (company_id, conversation_id) REFERENCES email_conversations (company_id, id) ON DELETE CASCADE
      )`,
      `CREATE INDEX email_messages_page_idx ON email_messages (conversation_id, sent_at, id)`,
      `CREATE FUNCTION email_messages_arrived() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
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
      END $$`,
      `CREATE TRIGGER email_messages_arrived AFTER INSERT ON email_messages
        REFERENCING NEW TABLE AS arrived FOR EACH STATEMENT EXECUTE FUNCTION email_messages_arrived()`,
      `CREATE TABLE chat_conversations (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL REFERENCES companies (id),
        source text NOT NULL,
        chat_key text NOT NULL,
        is_group boolean NOT NULL,
        contact_phone text,
        contact_name text NOT NULL,
        seller_id bigint NOT NULL,
        seller_phone text NOT NULL,
        first_message_at timestamptz NOT NULL,
        last_message_at timestamptz NOT NULL,
        last_message_direction text NOT NULL CHECK (last_message_direction IN ('inbound', 'outbound')),
        deleted_at timestamptz,
        deleted_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (company_id, seller_id, chat_key),
        UNIQUE (company_id, id),
        CHECK (first_message_at <= last_message_at),
        CHECK (NOT is_group OR contact_phone IS NULL),
        CHECK ((deleted_at IS NULL) = (deleted_reason IS NULL)),
        FOREIGN KEY (company_id, seller_id) REFERENCES users (company_id, id)
      )`,
      `CREATE INDEX chat_conversations_activity_idx ON chat_conversations (company_id, last_message_at, id)`,
      accountLinks('chat'),
      `CREATE TABLE chat_messages (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        public_id text NOT NULL UNIQUE,
        company_id bigint NOT NULL,
        conversation_id bigint NOT NULL,
        external_id text NOT NULL,
        sent_at timestamptz NOT NULL,
        direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
        author_phone text NOT NULL,
        author_name text NOT NULL,
        type text NOT NULL,
        text text,
        media jsonb CHECK (media IS NULL OR jsonb_typeof(media) = 'object'),
        transcription text,
        edited_at timestamptz,
        deleted_at timestamptz,
        deleted_reason text,
        UNIQUE (conversation_id, external_id),
        CHECK ((deleted_at IS NULL) = (deleted_reason IS NULL)),
        FOREIGN KEY (company_id, conversation_id) REFERENCES chat_conversations (company_id, id) ON DELETE CASCADE
      )`,
      `CREATE INDEX chat_messages_page_idx ON chat_messages (conversation_id, sent_at, id)`,
      `CREATE FUNCTION chat_messages_arrived() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
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
      END $$`,
      `CREATE TRIGGER chat_messages_arrived AFTER INSERT ON chat_messages
        REFERENCING NEW TABLE AS arrived FOR EACH STATEMENT EXECUTE FUNCTION chat_messages_arrived()`,
    ];
    for (const sql of statements) await q.query(sql);
    for (const table of CONVERSATION_TABLES) await q.query(`SELECT app_enable_tenant_rls($1, 'company_id')`, [table]);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...CONVERSATION_TABLES].reverse()) await q.query(`DROP TABLE ${table}`);
    await q.query('DROP FUNCTION email_messages_arrived()');
    await q.query('DROP FUNCTION chat_messages_arrived()');
  }
}

/** The accounts of a channel's conversations. */
function accountLinks(channel: 'email' | 'chat'): string {
  return `CREATE TABLE ${channel}_conversation_accounts (
    company_id bigint NOT NULL,
    conversation_id bigint NOT NULL,
    account_id bigint NOT NULL,
    PRIMARY KEY (conversation_id, account_id),
    FOREIGN KEY (company_id, conversation_id) REFERENCES ${channel}_conversations (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, account_id) REFERENCES accounts (company_id, id)
  )`;
}

const CONVERSATION_TABLES = [
  'mailboxes',
  'email_conversations',
  'email_conversation_mailboxes',
  'email_participants',
  'email_conversation_accounts',
  'email_messages',
  'chat_conversations',
  'chat_conversation_accounts',
  'chat_messages',
];
