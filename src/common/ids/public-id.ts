import { randomBytes } from 'node:crypto';

/**
 * Prefixes of public ids: the spec's prefix table, plus the ids the spec uses without
 * naming a prefix (the company, the API client, an overall evaluation, a skill) and the admin
 * side's webhook endpoints and deliveries, and the rows of a company's audit trail.
 */
export const ID_PREFIX = {
  meeting: 'mtg_',
  call: 'call_',
  user: 'usr_',
  emailConversation: 'eml_',
  emailMessage: 'emsg_',
  chatConversation: 'wa_',
  chatMessage: 'wamsg_',
  account: 'acc_',
  answer: 'ans_',
  question: 'qst_',
  template: 'tpl_',
  team: 'team_',
  tag: 'tag_',
  competitor: 'ctr_',
  company: 'cmp_',
  client: 'cli_',
  evaluation: 'eval_',
  skill: 'skl_',
  webhookEndpoint: 'whe_',
  webhookDelivery: 'whd_',
  /** A test event's `webhook-id` (events of changes carry their change's id). */
  webhookEvent: 'evt_',
  auditEvent: 'aev_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;
export type IdPrefix = (typeof ID_PREFIX)[IdKind];

/** The `pattern` the interface description gives ids of `kind`: their prefix. */
export const idPattern = (kind: IdKind): string => `^${ID_PREFIX[kind]}`;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 22 base62 characters, each uniformly random: about 131 bits. */
export const ID_BODY_LENGTH = 22;
const BODY = new RegExp(`^[0-9A-Za-z]{${ID_BODY_LENGTH}}$`);

/** base62 of `bytes`, left-padded to `length` characters. */
export function base62(bytes: Buffer, length: number): string {
  let n = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(length, '0');
}

/**
 * A new opaque public id of the kind: prefix + 22 characters drawn uniformly from base62. They
 * are the base64 text of 32 random bytes without its `+`, `/` and padding (dropping two of 64
 * equally likely symbols leaves the other 62 equally likely), which is what the SQL function
 * `app_public_id(prefix)` does for ids minted inside PostgreSQL (seed:volume), so every id has
 * the same form whatever created it.
 */
export function mintId(kind: IdKind): string {
  return ID_PREFIX[kind] + randomIdBody();
}

/**
 * Random bytes drawn from the CSPRNG 4 KiB at a time and handed out 32 at a time: one call into
 * it per 128 ids instead of one per id (per request, the request id), which cost about 5% of the
 * framework floor's CPU. Each byte is handed out once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = POOL_BYTES;

function random32(): Buffer {
  if (used + 32 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const bytes = pool.subarray(used, used + 32);
  used += 32;
  return bytes;
}

/** The 22 random base62 characters of every id the service mints (public ids, request ids, token ids). */
export function randomIdBody(): string {
  for (;;) {
    const body = random32().toString('base64').replace(/[+/=]/g, '').slice(0, ID_BODY_LENGTH);
    if (body.length === ID_BODY_LENGTH) return body; // 43 symbols to draw from, so almost always
  }
}

/**
 * The id when it is a well-formed id of `kind`, otherwise null. Callers answer null with
 * 404: a malformed id and an id of the wrong collection are simply "not found".
 */
export function parseId(kind: IdKind, value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const prefix = ID_PREFIX[kind];
  if (!value.startsWith(prefix)) return null;
  return BODY.test(value.slice(prefix.length)) ? value : null;
}
