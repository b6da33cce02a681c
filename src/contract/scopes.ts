/** The scopes of the API and what each grants (the spec's scope table). */
export const SCOPES = {
  'meetings.read': 'List and retrieve meetings, their answers and overall evaluations',
  'calls.read': 'List and retrieve calls, their answers and overall evaluations',
  'transcriptions.read': 'Read transcripts, together with meetings.read or calls.read',
  'emails.read': 'List and retrieve email conversations',
  'emails.content.read': 'Read email messages, together with emails.read',
  'chat.read': 'List and retrieve chat conversations',
  'chat.content.read': 'Read chat messages, together with chat.read',
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];
