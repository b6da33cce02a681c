/*
 * The statements of ConversationsFactory's bulk writes: many conversations or messages in one
 * statement, their public ids minted inside PostgreSQL (app_public_id), for pagination and volume.
 */

/** $1 company, $2 count, $3 from, $4 same instant, $5 mailbox id, $6 mailbox address, $7 and $8 the conversation's and message's id prefixes. */
export const BULK_EMAILS = `WITH c AS (
     INSERT INTO email_conversations (public_id, company_id, thread_key, subject, first_message_at, last_message_at, last_message_direction)
     SELECT app_public_id($7), $1, md5(random()::text || g::text) || '@bulk', 'Conversa ' || g,
       t, t, 'outbound'
     FROM generate_series(1, $2::int) g, LATERAL (SELECT $3::timestamptz + CASE WHEN $4 THEN interval '0' ELSE (g - 1) * interval '1 second' END AS t) x
     RETURNING id, last_message_at, subject
   ), linked AS (
     INSERT INTO email_conversation_mailboxes (company_id, conversation_id, mailbox_id) SELECT $1, c.id, $5 FROM c
   )
   INSERT INTO email_messages (public_id, company_id, conversation_id, message_id, sent_at, direction, subject, snippet, body_text, sender, recipients_to)
   SELECT app_public_id($8), $1, c.id, md5(random()::text || c.id::text) || '@bulk', c.last_message_at,
     'outbound', c.subject, 'Olá', 'Olá', jsonb_build_object('address', $6::text, 'name', NULL, 'internal', true),
     jsonb_build_array(jsonb_build_object('address', 'cliente' || c.id || '@cliente.com.br', 'name', NULL, 'internal', false))
   FROM c`;

/** $1 company, $2 count, $3 from, $4 same instant, $5 seller id, $6 and $7 the chat's and message's id prefixes. */
export const BULK_CHATS = `WITH c AS (
     INSERT INTO chat_conversations (public_id, company_id, source, chat_key, is_group, contact_phone, contact_name, seller_id, seller_phone,
       first_message_at, last_message_at, last_message_direction)
     SELECT app_public_id($6), $1, 'chat_web', md5(random()::text || g::text), false,
       '+55 11 9' || lpad(g::text, 8, '0'), 'Contato ' || g, $5, '+55 11 90000-0000', t, t, 'inbound'
     FROM generate_series(1, $2::int) g, LATERAL (SELECT $3::timestamptz + CASE WHEN $4 THEN interval '0' ELSE (g - 1) * interval '1 second' END AS t) x
     RETURNING id, last_message_at, contact_phone, contact_name
   )
   INSERT INTO chat_messages (public_id, company_id, conversation_id, external_id, sent_at, direction, author_phone, author_name, type, text)
   SELECT app_public_id($7), $1, c.id, md5(random()::text), c.last_message_at, 'inbound',
     c.contact_phone, c.contact_name, 'text', 'Olá'
   FROM c`;

/** A message's time: one second apart from $3, or all at $3 when $4. */
const AT = `$3::timestamptz + CASE WHEN $4 THEN interval '0' ELSE (g - 1) * interval '1 second' END`;

/** $1 company, $2 conversation, $3 from, $4 same instant, $5 count, $6 the message id prefix. */
export const BULK_EMAIL_MESSAGES = `INSERT INTO email_messages (public_id, company_id, conversation_id, message_id, sent_at, direction, subject, snippet, body_text, sender)
     SELECT app_public_id($6), $1, $2, md5(random()::text || g::text) || '@bulk', ${AT},
       CASE WHEN g % 2 = 0 THEN 'outbound' ELSE 'inbound' END, 'Re: Conversa', 'Mensagem ' || g, 'Mensagem ' || g,
       jsonb_build_object('address', 'pessoa' || g || '@cliente.com.br', 'name', NULL, 'internal', false)
     FROM generate_series(1, $5::int) g`;

export const BULK_CHAT_MESSAGES = `INSERT INTO chat_messages (public_id, company_id, conversation_id, external_id, sent_at, direction, author_phone, author_name, type, text)
     SELECT app_public_id($6), $1, $2, md5(random()::text || g::text), ${AT},
       CASE WHEN g % 2 = 0 THEN 'outbound' ELSE 'inbound' END, '+55 11 98888-7777', 'Cliente', 'text', 'Mensagem ' || g
     FROM generate_series(1, $5::int) g`;
