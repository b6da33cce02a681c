import { Faker } from '@faker-js/faker';
import { QuestionType, RecordingKind } from '../recordings/recording.vocabulary';
import { Participant, Utterance } from './recordings.factory';

/*
 * What the demo's people say and how they write: lines, questions, subjects, names, phones and
 * CNPJs in Brazilian Portuguese, shared by the demo seeder and the activity simulator.
 */

/** What sellers and customers say in the demo's transcripts, e-mails and chats (and in the activity simulator's). */
export const SELLER_LINES = [
  'Obrigado pelo tempo hoje, a ideia é entender o cenário de vocês e mostrar como a plataforma pode ajudar.',
  'Hoje vocês registram as reuniões de forma manual ou já usam alguma ferramenta?',
  'Quantas pessoas estão no time comercial atualmente?',
  'Faz sentido a gente olhar juntos o funil do último trimestre?',
  'A integração com o CRM leva em média duas semanas, com acompanhamento do nosso time de implantação.',
  'Consigo preparar uma proposta com o plano anual e desconto para quarenta licenças.',
  'Quem mais participa da decisão além de você?',
  'Posso agendar uma demonstração técnica com a equipe de TI na próxima terça?',
  'O contrato inclui suporte em português e treinamento para os gestores.',
  'Vou enviar o material por e-mail ainda hoje, junto com o cronograma de implantação.',
  'Qual seria o prazo ideal para começar a usar?',
  'Entendi. E hoje qual é a maior dificuldade na gestão do time?',
];

export const CUSTOMER_LINES = [
  'Hoje a gente usa planilha e muita coisa se perde entre uma reunião e outra.',
  'Somos doze vendedores, mas a meta é chegar a vinte até o fim do ano.',
  'A nossa maior preocupação é a segurança dos dados dos clientes.',
  'Preciso validar o orçamento com o financeiro antes de avançar.',
  'Vocês já atendem empresas do setor de logística?',
  'O concorrente ofereceu um preço menor, mas sem a parte de avaliação automática.',
  'Faz sentido, pode mandar a proposta que eu apresento para a diretoria.',
  'A implantação precisa estar pronta antes do início do próximo trimestre.',
  'Como funciona o treinamento para os novos vendedores?',
  'Perfeito, terça às dez funciona para nós.',
  'E a integração com o nosso ERP, é possível?',
  'Gostei bastante da parte de transcrição das ligações.',
];

/** The demo template's questions, a question of every type, with the answers the demo gives. */
export const DEMO_QUESTIONS: Array<{ text: string; type: QuestionType; answers: string[] }> = [
  {
    text: 'Qual é a principal dor do cliente?',
    type: 'text',
    answers: ['Perda de informação entre reuniões', 'Baixa previsibilidade do funil'],
  },
  { text: 'Qual plano foi apresentado?', type: 'option', answers: ['Enterprise', 'Profissional'] },
  { text: 'Quais produtos interessam?', type: 'multi_select', answers: ['Gravação, Transcrição', 'Avaliação, Integração CRM'] },
  { text: 'O decisor participou?', type: 'boolean', answers: ['Sim', 'Não'] },
  { text: 'Quantas licenças?', type: 'number', answers: ['40', '12'] },
];

/** A sales conversation of tens to hundreds of utterances, alternating speakers, with timings; `index` varies it. */
export function salesTranscript(seller: string, customer: string, durationSeconds: number, index: number): Utterance[] {
  const count = 20 + ((index * 37) % 280);
  const step = Math.max(1500, Math.floor((durationSeconds * 1000) / count));
  const utterances: Utterance[] = [];
  for (let n = 0; n < count; n++) {
    const sellerSpeaks = n % 2 === 0;
    const lines = sellerSpeaks ? SELLER_LINES : CUSTOMER_LINES;
    const start = n * step;
    utterances.push({
      // Now and then diarization cannot tell who spoke.
      speaker: n % 17 === 16 ? null : sellerSpeaks ? seller : customer,
      text: lines[(n * 5 + index) % lines.length],
      start_ms: start,
      end_ms: start + step - 200,
    });
  }
  return utterances;
}

/** A record's outside participants: the customer (and a colleague of theirs in a meeting), by e-mail at the account's domain or by phone. */
export function customerParticipants(f: Faker, kind: RecordingKind, customer: string, domain: string): Participant[] {
  const person = (name: string): Participant =>
    kind === 'meeting' ? { display_name: name, email: `${slug(name).split('.')[0]}@${domain}` } : { display_name: name, phone: phone(f) };
  return kind === 'meeting' ? [person(customer), person(f.person.fullName())] : [person(customer)];
}

export const EMAIL_SUBJECTS = ['Proposta comercial', 'Contrato', 'Dúvidas sobre a implantação', 'Agenda da demonstração'];

/** An e-mail's body: the seller's line to the contact (outbound) or the contact's line (inbound); `index` picks the line. */
export function emailBody(outbound: boolean, contactName: string, index: number): string {
  return outbound
    ? `Olá ${contactName.split(' ')[0]},\n\n${SELLER_LINES[index % SELLER_LINES.length]}\n\nAbraços`
    : `Oi,\n\n${CUSTOMER_LINES[index % CUSTOMER_LINES.length]}\n\nAtt.`;
}

export const MEETING_LABELS = ['de descoberta', 'de demonstração', 'de proposta', 'de negociação', 'de alinhamento', 'técnica'];

export function slug(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.|\.$/g, '');
}

/** Brazilian mobile numbers, formatted as people write them. */
export function phone(f: Faker): string {
  return `+55 ${f.helpers.arrayElement(['11', '21', '31', '41', '51', '61', '71', '81'])} 9${f.string.numeric(4)}-${f.string.numeric(4)}`;
}

/** CNPJs as companies record them: formatted, digits only, or with stray spacing. */
export function cnpj(f: Faker, variant: number): string {
  const d = f.string.numeric(12) + f.string.numeric(2);
  const formats = [
    `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`,
    d,
    `${d.slice(0, 2)}${d.slice(2, 5)}${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`,
    `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)} ${d.slice(8, 12)} ${d.slice(12)}`,
    `${d.slice(0, 8)}-${d.slice(8)}`,
  ];
  return formats[variant % formats.length];
}
