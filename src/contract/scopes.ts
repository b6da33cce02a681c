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
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/** The scopes that read conversations: what the demo's client holds (reading the trail is a security team's, granted apart). */
export const DATA_SCOPES = ALL_SCOPES.filter((scope) => scope !== 'audit.read');
