import { Injectable } from '@nestjs/common';
import { base, Faker, pt_BR } from '@faker-js/faker';
import { DataSource, EntityManager } from 'typeorm';
import { DATA_SCOPES } from '../contract/scopes';
import { ClientsRepository } from '../clients/clients.repository';
import { ClientsService } from '../clients/clients.service';
import { CompaniesRepository } from '../companies/companies.repository';
import { CompaniesService } from '../companies/companies.service';
import { AppConfig } from '../config/app-config';
import { MEETING_TYPES, RecordingKind, TEAM_ROLES } from '../recordings/recording.vocabulary';
import { ConversationsFactory, EmailSpec, MailboxRef } from './conversations.factory';
import {
  cnpj,
  CUSTOMER_LINES,
  customerParticipants,
  DEMO_QUESTIONS,
  EMAIL_SUBJECTS,
  emailBody,
  MEETING_LABELS,
  phone,
  salesTranscript,
  SELLER_LINES,
  slug,
} from './demo-content';
import { EVALUATION_STATES, RecordingsFactory, TemplateRef, TRANSCRIPT_STATES, UserRef } from './recordings.factory';
import { Ref } from './tenant-factory';

/** Fixed: the demo is the same data every time (ids and dates aside). */
export const DEMO_SEED = 20261122;
export const DEMO_COMPANY_NAME = 'Acme Comércio e Serviços Ltda';

export interface DemoCredentials {
  company_id: string;
  client_id: string;
  client_secret: string;
}

/**
 * `seed:demo`: a new company with realistic Brazilian B2B sales data in every documented
 * state, and an API client holding every scope that reads data (not audit.read). Content comes from faker (pt-BR) with a
 * fixed seed, written through the same factories the tests use, in one transaction.
 */
@Injectable()
export class DemoSeeder {
  constructor(
    private readonly db: DataSource,
    private readonly companies: CompaniesService,
    private readonly clients: ClientsService,
  ) {}

  /** Outside Nest (first start, tests): the same services over a schema-owner connection. */
  static over(db: DataSource, config: AppConfig): DemoSeeder {
    const companies = new CompaniesService(new CompaniesRepository(db));
    return new DemoSeeder(db, companies, new ClientsService(new ClientsRepository(db), companies, config));
  }

  async seed(now = new Date()): Promise<DemoCredentials> {
    const faker = new Faker({ locale: [pt_BR, base], seed: DEMO_SEED });
    const company = await this.companies.create(DEMO_COMPANY_NAME, true);
    await this.db.transaction((manager) => new DemoData(manager, company.id, faker, now).build());
    const client = await this.clients.create({
      company: company.publicId,
      name: 'Demo integration',
      scopes: DATA_SCOPES,
    });
    return { company_id: company.publicId, client_id: client.client_id, client_secret: client.client_secret };
  }
}

/** One demo company's rows. */
class DemoData {
  private readonly people: RecordingsFactory;
  private readonly conversations: ConversationsFactory;
  private readonly domain = 'acme.com.br';

  constructor(
    manager: EntityManager,
    companyId: string,
    private readonly faker: Faker,
    private readonly now: Date,
  ) {
    this.people = new RecordingsFactory(manager, companyId);
    this.conversations = new ConversationsFactory(manager, companyId);
  }

  async build(): Promise<void> {
    const f = this.faker;
    const sellers: UserRef[] = [];
    for (let i = 0; i < 6; i++) {
      const first = f.person.firstName();
      const last = f.person.lastName();
      const email = `${slug(first)}.${slug(last)}${i}@${this.domain}`;
      sellers.push(await this.people.user({ name: `${first} ${last}`, email }));
    }
    const teams = [
      await this.people.team('Vendas Inbound'),
      await this.people.team('Vendas Enterprise'),
      await this.people.team('Customer Success'),
    ];
    for (const [i, seller] of sellers.entries()) {
      await this.people.membership(seller, teams[i % 3], TEAM_ROLES[i % 3], true);
      if (i % 2 === 0) await this.people.membership(seller, teams[(i + 1) % 3], TEAM_ROLES[(i + 1) % 3], false);
    }

    const accounts: Array<Ref & { domain: string }> = [];
    for (let i = 0; i < 6; i++) {
      const domain = `${slug(f.company.name()).slice(0, 24)}.com.br`;
      accounts.push({ ...(await this.people.account(domain, i === 5 ? null : cnpj(f, i))), domain });
    }
    const tags = [];
    for (const name of ['prioridade', 'renovação', 'upsell', 'inbound']) tags.push(await this.people.tag(name));
    const competitors = [
      await this.people.competitor('Gong'),
      await this.people.competitor('Chorus'),
      await this.people.competitor('Planilhas'),
    ];
    const skills = [
      await this.people.skill('Descoberta'),
      await this.people.skill('Contorno de objeções'),
      await this.people.skill('Fechamento'),
    ];
    const template = await this.people.template(
      DEMO_QUESTIONS.map(({ text, type }) => ({ text, type })),
      'Roteiro de qualificação BANT',
    );

    await this.recordings('meeting', sellers, { accounts, tags, competitors, skills, template });
    await this.recordings('call', sellers, { accounts, tags, competitors, skills, template });
    await this.emails(sellers, accounts);
    await this.chats(sellers, accounts);
  }

  /** Every transcript state crossed with every evaluation state, and the other states spread over them. */
  private async recordings(
    kind: RecordingKind,
    sellers: UserRef[],
    refs: { accounts: Array<Ref & { domain: string }>; tags: Ref[]; competitors: Ref[]; skills: Ref[]; template: TemplateRef },
  ): Promise<void> {
    const f = this.faker;
    let i = 0;
    for (const transcript of TRANSCRIPT_STATES) {
      for (const evaluation of EVALUATION_STATES) {
        const owner = sellers[i % sellers.length];
        const customer = f.person.fullName();
        const account = refs.accounts[i % refs.accounts.length];
        const meetingAt = new Date(this.now.getTime() - (i * 29 + 7) * 3_600_000);
        const durationSeconds = 300 + ((i * 397) % 3300);
        const withTemplate = i % 3 !== 2;
        await this.people.recording(kind, {
          owner,
          title: `${kind === 'meeting' ? 'Reunião' : 'Ligação'} ${MEETING_LABELS[i % MEETING_LABELS.length]} — ${f.company.name()}`,
          mediaType: kind === 'call' ? 'audio' : i % 4 === 3 ? 'audio' : 'video',
          audience: i % 5 === 4 ? 'internal' : 'external', // internal: nobody from outside, so no participant listed
          meetingAt,
          createdAt: new Date(meetingAt.getTime() + (durationSeconds + 120) * 1000),
          durationSeconds,
          noShow: i % 7 === 6,
          transcript,
          evaluation,
          template: withTemplate ? refs.template : undefined,
          answers: DEMO_QUESTIONS.map((q) => q.answers[i % 2]),
          tags: i % 4 === 3 ? [] : refs.tags.filter((_, t) => (i + t) % 3 === 0),
          competitors: i % 2 ? [refs.competitors[i % refs.competitors.length]] : [],
          accounts: i % 4 === 0 ? [account, refs.accounts[(i + 1) % refs.accounts.length]] : [account],
          enablement:
            i % 3 === 0
              ? undefined
              : {
                  speakers: [owner, sellers[(i + 1) % sellers.length]],
                  meetingType: i % 5 === 0 ? null : MEETING_TYPES[i % MEETING_TYPES.length],
                  nextSteps: 'Enviar proposta comercial e agendar demonstração técnica com TI.',
                  othersSeconds: Math.floor(durationSeconds / 3),
                },
          skillScores: i % 2 === 0 ? refs.skills.map((skill, s) => ({ user: owner, skill, score: 55 + ((i * 7 + s * 13) % 45) })) : [],
          botHistory: [
            { code: 'joining_call', subcode: null, occurred_at: meetingAt.toISOString() },
            i % 7 === 6
              ? {
                  code: 'call_ended',
                  subcode: 'timeout_exceeded_waiting_room',
                  occurred_at: new Date(meetingAt.getTime() + 900_000).toISOString(),
                }
              : { code: 'in_call_recording', subcode: null, occurred_at: new Date(meetingAt.getTime() + 60_000).toISOString() },
          ],
          participants: i % 5 === 4 ? [] : customerParticipants(f, kind, customer, account.domain),
          customerQuestions: [
            { question: 'Qual é o prazo de implantação?', category: 'implementation' },
            { question: 'O preço inclui treinamento?', category: 'pricing' },
          ].slice(0, 1 + (i % 2)),
          utterances:
            transcript === 'original' || transcript === 'enhanced' ? salesTranscript(owner.name, customer, durationSeconds, i) : undefined,
        });
        i++;
      }
    }
  }

  private async emails(sellers: UserRef[], accounts: Ref[]): Promise<void> {
    const f = this.faker;
    const mailboxes: MailboxRef[] = [];
    for (const seller of sellers.slice(0, 3)) mailboxes.push(await this.conversations.mailbox(seller));
    mailboxes.push(await this.conversations.mailbox(null, `comercial@${this.domain}`));

    for (let t = 0; t < 8; t++) {
      const mailbox = mailboxes[t % mailboxes.length];
      const contactName = f.person.fullName();
      const contact = { address: `${slug(contactName)}@${slug(f.company.name()).slice(0, 20)}.com.br`, name: contactName, internal: false };
      const self = { address: mailbox.address, name: null, internal: true };
      const subject = `${EMAIL_SUBJECTS[t % EMAIL_SUBJECTS.length]} — ${f.company.name()}`;
      const start = new Date(this.now.getTime() - (t * 31 + 5) * 3_600_000);
      let root: string | null = null;
      const length = 2 + (t % 5);
      for (let m = 0; m < length; m++) {
        const outbound = (m + t) % 2 === 0;
        const spec: EmailSpec = {
          mailbox,
          subject: m === 0 ? subject : `Re: ${subject}`,
          sentAt: new Date(start.getTime() + m * 47 * 60_000),
          direction: outbound ? 'outbound' : 'inbound',
          references: root,
          inReplyTo: root,
          from: outbound ? self : contact,
          to: [outbound ? contact : self],
          cc: m === 1 ? [{ address: `financeiro@${this.domain}`, name: 'Financeiro', internal: true }] : [],
          body: emailBody(outbound, contactName, t + m),
          attachments:
            m === 0 && t % 2 === 0 ? [{ filename: 'Proposta_Acme_2026.pdf', mime_type: 'application/pdf', size_bytes: 248_133 + t }] : [],
        };
        const sent = await this.conversations.email(spec);
        root ??= sent.messageId;
        if (m === 0) await this.conversations.emailAccounts(sent.conversation, [accounts[t % accounts.length]]);
        // The first thread was also captured by a second seller's mailbox: one conversation, two mailboxes.
        if (t === 0) await this.conversations.email({ ...spec, mailbox: mailboxes[1], messageId: sent.messageId });
      }
    }
  }

  private async chats(sellers: UserRef[], accounts: Ref[]): Promise<void> {
    const f = this.faker;
    for (let c = 0; c < 6; c++) {
      const seller = sellers[c % sellers.length];
      const isGroup = c === 4;
      const contactName = isGroup ? `Projeto ${f.company.name()}` : f.person.fullName();
      const start = new Date(this.now.getTime() - (c * 23 + 3) * 3_600_000);
      const at = (m: number) => new Date(start.getTime() + m * 4 * 60_000);
      const chat = await this.conversations.chat({
        seller,
        sellerPhone: phone(f),
        isGroup,
        contact: { phone: isGroup ? null : phone(f), name: contactName },
        accounts: [accounts[(c + 2) % accounts.length]],
        messages: Array.from({ length: 8 + c * 2 }, (_, m) => {
          const outbound = m % 2 === 1;
          return {
            sentAt: at(m),
            direction: outbound ? ('outbound' as const) : ('inbound' as const),
            authorName: outbound ? seller.name : contactName,
            text: (outbound ? SELLER_LINES : CUSTOMER_LINES)[(m + c) % 12],
          };
        }),
      });
      const extra = chat.messages.length;
      await this.conversations.chatMessage(chat, {
        sentAt: at(extra),
        direction: 'inbound',
        type: 'audio',
        text: null,
        media: { file_name: null, mime_type: 'audio/ogg', size_bytes: 48_210 + c },
        transcription: 'Oi, tudo bem? Consegui falar com o financeiro e a proposta foi aprovada.',
      });
      await this.conversations.chatMessage(chat, {
        sentAt: at(extra + 1),
        direction: 'outbound',
        type: 'document',
        text: 'Segue o contrato para assinatura.',
        media: { file_name: 'Contrato_Acme.pdf', mime_type: 'application/pdf', size_bytes: 182_004 + c },
      });
      await this.conversations.chatMessage(chat, {
        sentAt: at(extra + 2),
        direction: 'inbound',
        type: 'image',
        text: null,
        media: { file_name: 'print.jpg', mime_type: 'image/jpeg', size_bytes: 92_551 + c },
      });
      await this.conversations.editChatMessage(chat.messages[1], 'Bom dia! Corrigindo: a reunião é na terça às 10h.', at(2));
      await this.conversations.deleteChatMessage(chat.messages[2], 'revoked_for_everyone', at(3));
      if (c === 5) await this.conversations.deleteChat(chat, 'deleted_by_seller', at(extra + 3));
    }
  }
}
