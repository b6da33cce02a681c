/** The scopes of the API and what each grants (the spec's scope table). */
export const SCOPES = {
  'meetings.read': 'List and retrieve meetings, their answers and overall evaluations',
  'calls.read': 'List and retrieve calls, their answers and overall evaluations',
  'transcriptions.read': 'Read transcripts, together with meetings.read or calls.read',
  'emails.read': 'List and retrieve email conversations',
  'emails.content.read': 'Read email messages, together with emails.read',
  'chat.read': 'List and retrieve chat conversations',
  'chat.content.read': 'Read chat messages, together with chat.read',
  'audit.read': "Read the company's own audit trail (GET /v1/audit-events)",
  'webhooks.manage': "Manage the company's webhook endpoints: register, pause, rotate, inspect and retry deliveries (/v1/webhook-endpoints)",
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/**
 * The scopes that read conversations: what the demo's client holds (reading the trail is a
 * security team's, managing webhooks an integration owner's, each granted apart).
 */
export const DATA_SCOPES = ALL_SCOPES.filter((scope) => scope !== 'audit.read' && scope !== 'webhooks.manage');

/**
 * The scopes of each collection of records, spelled once for every list of them: `read` lists and
 * retrieves its records (a token needs one collection's to read the export or the change feed at
 * all); `content`, with `read`, reads the part that holds what was said (the transcript of a
 * meeting or call, the messages of an email or chat conversation).
 */
export const COLLECTION_SCOPES = {
  meeting: { read: 'meetings.read', content: 'transcriptions.read' },
  call: { read: 'calls.read', content: 'transcriptions.read' },
  email: { read: 'emails.read', content: 'emails.content.read' },
  chat: { read: 'chat.read', content: 'chat.content.read' },
} as const satisfies Record<string, { read: Scope; content: Scope }>;

/** Every collection's `read` scope, in the API's order: a token needs one of them to read the export or the change feed. */
export const READ_SCOPES: readonly Scope[] = Object.values(COLLECTION_SCOPES).map((c) => c.read);
