import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The export stream's walk (`GET /v1/export`): each collection of a company in ascending id, byte
 * order, whatever the database's collation (`COLLATE "C"`), resumed after an id. One index per
 * collection serves it as a range scan in order, so a batch costs the same at the start and at
 * the end of a company of any size.
 */
export class ExportOrder1765900000000 implements MigrationInterface {
  name = 'ExportOrder1765900000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of UP) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of DOWN) await q.query(sql);
  }
}

const UP: string[] = [
  `CREATE INDEX recordings_export ON recordings (company_id, kind, public_id COLLATE "C")`,
  `CREATE INDEX email_conversations_export ON email_conversations (company_id, public_id COLLATE "C")`,
  `CREATE INDEX chat_conversations_export ON chat_conversations (company_id, public_id COLLATE "C")`,
];

const DOWN: string[] = [
  `DROP INDEX chat_conversations_export`,
  `DROP INDEX email_conversations_export`,
  `DROP INDEX recordings_export`,
];
