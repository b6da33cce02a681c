import request from 'supertest';
import { DataSource } from 'typeorm';
import { Company } from '../../src/companies/company.entity';
import { Scope } from '../../src/contract/scopes';
import { ConversationsFactory, MailboxRef } from '../../src/seeding/conversations.factory';
import { RecordingsFactory, UserRef } from '../../src/seeding/recordings.factory';
import { createClient, tokenFor } from './credentials';
import { createCompany } from './factories';

/** A company with a seller, the seller's mailbox, a client holding `scopes`, its token, and factories for its data. */
export interface Tenant {
  company: Company;
  people: RecordingsFactory;
  conversations: ConversationsFactory;
  seller: UserRef;
  mailbox: MailboxRef;
  token: string;
}

export async function createTenant(db: DataSource, http: ReturnType<typeof request>, scopes: Scope[]): Promise<Tenant> {
  const company = await createCompany(db);
  const people = new RecordingsFactory(db, company.id);
  const conversations = new ConversationsFactory(db, company.id);
  const seller = await people.user({ name: 'Ana Vendedora', email: `ana.${company.publicId.slice(4, 12)}@empresa.com.br` });
  const mailbox = await conversations.mailbox(seller);
  const token = await tokenFor(http, await createClient(db, company, { scopes }));
  return { company, people, conversations, seller, mailbox, token };
}
