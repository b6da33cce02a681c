import { DataSource } from 'typeorm';
import { ConversationsFactory } from '../../src/seeding/conversations.factory';
import { RecordingsFactory } from '../../src/seeding/recordings.factory';
import { createCompany } from '../support/factories';
import { ownerDataSource, sleep } from '../support/test-app';

/**
 * A conversation's activity columns are derived from its messages by a trigger. Two writers
 * adding messages to one conversation at once: the later-committing one must not write a count
 * taken before the other's message was visible.
 */
describe("a conversation's activity under concurrent captures", () => {
  let db: DataSource;
  beforeAll(async () => {
    db = await ownerDataSource();
  });
  afterAll(() => db.destroy());

  it.each(['chat', 'email'] as const)('keeps %s activity at the latest message when the older one commits last', async (channel) => {
    const company = await createCompany(db);
    const seller = await new RecordingsFactory(db, company.id).user();
    const base = new ConversationsFactory(db, company.id);
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 23, 10, minute));
    const mailbox = channel === 'email' ? await base.mailbox(seller) : undefined;
    const first =
      channel === 'chat'
        ? await base.chat({ seller, messages: [{ sentAt: at(0) }] })
        : (await base.email({ mailbox: mailbox!, sentAt: at(0) })).conversation;
    const root =
      channel === 'email'
        ? ((await db.query('SELECT message_id FROM email_messages WHERE conversation_id = $1', [first.id]))[0].message_id as string)
        : '';
    const [a, b] = [db.createQueryRunner(), db.createQueryRunner()];
    await Promise.all([a.connect(), b.connect()]);
    try {
      const capture = async (runner: typeof a, sentAt: Date) => {
        const f = new ConversationsFactory(runner.manager, company.id);
        if (channel === 'chat') await f.chatMessage(first, { sentAt });
        else await f.email({ mailbox: mailbox!, sentAt, references: root });
      };
      await a.startTransaction();
      await capture(a, at(5)); // the newer message, held open
      await b.startTransaction();
      const older = capture(b, at(3)); // waits for the conversation
      await sleep(300);
      await a.commitTransaction();
      await older;
      await b.commitTransaction();
    } finally {
      await Promise.all([a.release(), b.release()]);
    }
    const table = channel === 'chat' ? 'chat_conversations' : 'email_conversations';
    const [row] = await db.query(`SELECT last_message_at, first_message_at FROM ${table} WHERE id = $1`, [first.id]);
    expect(row.last_message_at.toISOString()).toBe(at(5).toISOString());
    expect(row.first_message_at.toISOString()).toBe(at(0).toISOString());
    if (channel === 'email') {
      const [{ message_count }] = await db.query('SELECT message_count FROM email_conversations WHERE id = $1', [first.id]);
      expect(message_count).toBe(3);
    }
  });
});
