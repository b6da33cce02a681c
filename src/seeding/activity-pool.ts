import { EntityManager } from 'typeorm';
import { ConversationsFactory, MailboxRef } from './conversations.factory';
import { RecordingsFactory, TemplateRef, UserRef } from './recordings.factory';
import { Ref } from './tenant-factory';

/** The company's rows new captures point to (sellers, templates, tags, accounts, mailboxes), read once per run. */
export interface ActivityPool {
  users: UserRef[];
  templates: TemplateRef[];
  tags: Ref[];
  competitors: Ref[];
  accounts: Array<Ref & { domain: string }>;
  mailboxes: MailboxRef[];
}

/**
 * The company's sellers, templates, tags, competitors, accounts and mailboxes that new captures
 * point to (a bounded number of each). A company without a seller gets one, with a mailbox,
 * so that a bare company starts receiving captures too.
 */
export async function referencePool(m: EntityManager, companyId: string): Promise<ActivityPool> {
  const rows = (sql: string) => m.query(sql, [companyId]);
  const refs = (table: string, extra = '') =>
    rows(`SELECT id::text AS id, public_id AS "publicId"${extra} FROM ${table} WHERE company_id = $1 ORDER BY id LIMIT 50`);
  const users = await refs('users', ', name, email');
  if (!users.length) users.push(await new RecordingsFactory(m, companyId).user());
  const mailboxes = await rows('SELECT id::text AS id, address FROM mailboxes WHERE company_id = $1 ORDER BY id LIMIT 20');
  if (!mailboxes.length) mailboxes.push(await new ConversationsFactory(m, companyId).mailbox(users[0]));
  const templates = await rows(
    `SELECT t.id::text AS id, t.public_id AS "publicId",
       json_agg(json_build_object('id', q.id::text, 'publicId', q.public_id, 'text', q.text, 'type', q.type, 'position', q.position)
         ORDER BY q.position) AS questions
     FROM templates t JOIN template_questions q ON q.template_id = t.id
     WHERE t.company_id = $1 GROUP BY t.id ORDER BY t.id DESC LIMIT 5`,
  );
  return {
    users,
    mailboxes,
    templates,
    tags: await refs('tags'),
    competitors: await refs('competitors'),
    accounts: await refs('accounts', ', domain'),
  };
}
