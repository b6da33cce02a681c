import { ALL_SCOPES } from '../src/contract/scopes';
import { CHANGE_OBJECTS } from '../src/changes/change.vocabulary';
import { feedBinding } from '../src/changes/changes.service';
import { CursorCodec } from '../src/common/cursors/cursor-codec';
import { RECORDING_COLLECTIONS } from '../src/recordings/recording-collections';
import type { VolumeResult } from '../src/seeding/volume-seeder';
import { BenchDatabase, cli } from './database';
import type { BenchOptions } from './options';

/** A company the bench seeded, with an API client holding every scope. */
export interface Tenant {
  companyId: string;
  internalId: string;
  clientId: string;
  clientSecret: string;
}

/** What one company gets: the volume flags of the bench, one company's share of them. */
export type Volume = Pick<BenchOptions, 'meetings' | 'calls' | 'emails' | 'chats' | 'emailMessages' | 'chatMessages'>;

/** Creates a company and its client through the admin CLI, as an admin would. */
export async function createTenant(db: BenchDatabase, env: NodeJS.ProcessEnv, name: string): Promise<Tenant> {
  const { id } = await cli<{ id: string }>(env, ['company:create', '--name', name]);
  const client = await cli<{ client_id: string; client_secret: string }>(env, [
    'client:create',
    '--company',
    id,
    '--name',
    `${name} bench client`,
    '--scopes',
    ALL_SCOPES.join(' '),
  ]);
  return { companyId: id, internalId: await db.internalCompanyId(id), clientId: client.client_id, clientSecret: client.client_secret };
}

/**
 * Seeds `volume` into the tenant with `seed:volume`: once for the recordings and e-mails, once
 * more for the chats, because their conversations have different lengths.
 */
/** What `documents:refresh` did: the read model written for everything seeded so far. */
export interface DocumentsRefresh {
  added: number;
  rendered: number;
  batches: number;
  seconds: number;
}

/** Writes every waiting document of the read model (the worker would, in the background), so reads measure stored documents. */
export function refreshDocuments(env: NodeJS.ProcessEnv): Promise<DocumentsRefresh> {
  return cli<DocumentsRefresh>(env, ['documents:refresh']);
}

export async function seedVolume(env: NodeJS.ProcessEnv, tenant: Tenant, volume: Volume): Promise<VolumeResult[]> {
  const runs: Array<[string, number][]> = [
    [
      ['--meetings', volume.meetings],
      ['--calls', volume.calls],
      ['--emails', volume.emails],
      ['--messages', volume.emailMessages],
    ],
    [
      ['--chats', volume.chats],
      ['--messages', volume.chatMessages],
    ],
  ];
  const results: VolumeResult[] = [];
  for (const flags of runs) {
    if (flags.every(([flag, n]) => flag === '--messages' || n === 0)) continue;
    const args = ['seed:volume', '--company', tenant.companyId, ...flags.flatMap(([flag, n]) => [flag, String(n)])];
    results.push(await cli<VolumeResult>(env, args, { progress: true }));
  }
  return results;
}

/** What the scenarios address: real ids, a realistic filter, a long transcript, a deep cursor. */
export interface Fixtures {
  meetingIds: string[];
  chatIds: string[];
  ownerEmail: string;
  meetingAfter: string;
  transcriptMeetingId: string;
  deepCursor: string;
  /** How many records of the list lie before the deep page. */
  deepOffset: number;
  /** The record the deep page must start with: the one right after `deepOffset` records. */
  deepFirstId: string;
  /** A change-feed cursor `changesDeepOffset` entries into the tenant's feed, and the entry the page after it starts with. */
  changesDeepCursor: string;
  changesDeepOffset: number;
  changesDeepFirstId: string;
}

/** How deep into the feed its deep page reads (or as deep as the tenant's feed goes, less a page). */
export const CHANGES_DEEP_OFFSET = 1_000_000;

const SAMPLE = 10_000;

/** A feed cursor, every type followed, after the entry `wanted` into the tenant's feed (or as deep as it goes, less two pages), and the entry the next page starts with. */
export async function feedCursorAt(
  db: BenchDatabase,
  tenant: Tenant,
  cursorSecret: string,
  wanted: number,
): Promise<{ cursor: string; offset: number; firstId: string }> {
  const company = tenant.internalId;
  const [{ entries }] = (
    await db.owner.query<{ entries: number }>('SELECT count(*)::int AS entries FROM change_log WHERE company_id = $1', [company])
  ).rows;
  const offset = Math.max(1, Math.min(wanted, entries - 200));
  const feed = await db.owner.query<{ epoch: string; xid: string; seq: string; public_id: string }>(
    `SELECT epoch::text AS epoch, xid::text AS xid, seq::text AS seq, public_id FROM change_log WHERE company_id = $1
     ORDER BY epoch, xid, seq OFFSET $2 LIMIT 2`,
    [company, offset - 1],
  );
  if (feed.rows.length < 2) throw new Error(`the change feed of ${tenant.companyId} has ${entries} entries: too few for a deep page`);
  const cursor = new CursorCodec(cursorSecret).seal(feedBinding(company, CHANGE_OBJECTS), [
    feed.rows[0].epoch,
    feed.rows[0].xid,
    feed.rows[0].seq,
  ]);
  return { cursor, offset, firstId: feed.rows[1].public_id };
}

export async function sampleMeetingIds(db: BenchDatabase, tenant: Tenant): Promise<string[]> {
  const { rows } = await db.owner.query<{ public_id: string }>(
    `SELECT public_id FROM recordings TABLESAMPLE SYSTEM (10) WHERE company_id = $1 AND kind = 'meeting' LIMIT $2`,
    [tenant.internalId, SAMPLE],
  );
  if (rows.length < 100) {
    // A small table: the block sample may miss it; read it plainly.
    const all = await db.owner.query<{ public_id: string }>(
      `SELECT public_id FROM recordings WHERE company_id = $1 AND kind = 'meeting' ORDER BY random() LIMIT $2`,
      [tenant.internalId, SAMPLE],
    );
    return all.rows.map((r) => r.public_id);
  }
  return rows.map((r) => r.public_id);
}

export async function prepareFixtures(db: BenchDatabase, tenant: Tenant, cursorSecret: string, deepOffset: number): Promise<Fixtures> {
  const company = tenant.internalId;
  const chats = await db.owner.query<{ public_id: string }>(
    `SELECT public_id FROM chat_conversations WHERE company_id = $1 ORDER BY random() LIMIT $2`,
    [company, SAMPLE],
  );
  const owner = await db.owner.query<{ email: string }>(
    `SELECT u.email FROM recordings r JOIN users u ON u.id = r.owner_id
     WHERE r.company_id = $1 AND r.kind = 'meeting' GROUP BY u.email ORDER BY count(*) DESC LIMIT 1`,
    [company],
  );
  // The deep page starts after the record `deepOffset` places into the list's order.
  const deep = await db.owner.query<{ id: string; micros: string; public_id: string }>(
    `SELECT id::text AS id, (extract(epoch FROM created_at) * 1000000)::bigint::text AS micros, public_id
     FROM recordings WHERE company_id = $1 AND kind = 'meeting' ORDER BY created_at, id OFFSET $2 LIMIT 2`,
    [company, Math.max(0, deepOffset - 1)],
  );
  if (deep.rows.length < 2) throw new Error(`the bench company has fewer than ${deepOffset + 1} meetings: lower --deep-offset`);
  const codec = new CursorCodec(cursorSecret);
  const deepCursor = codec.seal({ route: RECORDING_COLLECTIONS.meeting.listRoute, company, filters: {} }, [
    deep.rows[0].micros,
    deep.rows[0].id,
  ]);
  const feed = await feedCursorAt(db, tenant, cursorSecret, CHANGES_DEEP_OFFSET);
  return {
    changesDeepCursor: feed.cursor,
    changesDeepOffset: feed.offset,
    changesDeepFirstId: feed.firstId,
    meetingIds: await sampleMeetingIds(db, tenant),
    chatIds: chats.rows.map((r) => r.public_id),
    ownerEmail: owner.rows[0].email,
    meetingAfter: new Date(Date.now() - 365 * 86_400_000).toISOString(),
    transcriptMeetingId: await longTranscript(db, tenant, 1000),
    deepCursor,
    deepOffset,
    deepFirstId: deep.rows[1].public_id,
  };
}

const LINES = [
  'Bom dia, tudo bem? Obrigado por reservar esse tempo com a gente hoje.',
  'Tudo ótimo. Queria entender melhor como vocês fazem a integração com o nosso CRM.',
  'A integração é nativa: sincronizamos contatos, oportunidades e atividades a cada cinco minutos.',
  'E quanto tempo leva a implantação para uma equipe de quarenta vendedores?',
  'Em média duas semanas, com um gerente de sucesso acompanhando cada etapa.',
  'Hoje usamos planilhas e perdemos muito histórico quando alguém sai do time.',
  'Esse é justamente o ponto: todas as conversas ficam registradas e pesquisáveis.',
  'Vocês atendem a LGPD? Nosso jurídico vai perguntar sobre retenção de dados.',
  'Sim, os dados ficam no Brasil e a retenção é configurável por empresa.',
  'Qual seria o investimento no plano anual, considerando o volume que comentei?',
  'Consigo te enviar uma proposta ainda hoje, com desconto para pagamento anual.',
  'Perfeito. Quem mais precisa participar da próxima reunião do lado de vocês?',
  'Vou chamar nosso diretor comercial e a gerente de operações.',
  'Combinado, então marcamos para quinta-feira às dez horas?',
];

/** Gives one completed meeting of the tenant a transcript of `utterances` utterances (both variants) and returns its id. */
async function longTranscript(db: BenchDatabase, tenant: Tenant, utterances: number): Promise<string> {
  const lines = Array.from({ length: utterances }, (_, i) => {
    const start = i * 4_500 + (i % 7) * 130;
    return { speaker: i % 2 ? 'Cliente' : 'Vendedor', text: LINES[(i * 5) % LINES.length], start_ms: start, end_ms: start + 4_000 };
  });
  const { rows } = await db.owner.query<{ public_id: string }>(
    `WITH target AS (
       SELECT r.id, r.public_id FROM recordings r
       WHERE r.company_id = $1 AND r.kind = 'meeting' AND r.transcript_status = 'completed'
         AND EXISTS (SELECT 1 FROM transcripts t WHERE t.recording_id = r.id)
       ORDER BY r.id LIMIT 1
     ), updated AS (
       UPDATE transcripts t SET utterances = $2::jsonb FROM target WHERE t.recording_id = target.id RETURNING target.public_id
     )
     SELECT DISTINCT public_id FROM updated`,
    [tenant.internalId, JSON.stringify(lines)],
  );
  if (rows.length !== 1) throw new Error('no completed meeting with a transcript to lengthen');
  return rows[0].public_id;
}
