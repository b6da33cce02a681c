/** What the activity simulator writes, one kind per event. */
export const ACTIVITY_KINDS = [
  'meeting_captured',
  'call_captured',
  'transcript_advanced',
  'evaluation_advanced',
  'answers_filled',
  'email_captured',
  'email_captured_late',
  'chat_started',
  'chat_message_arrived',
  'chat_message_edited',
  'chat_message_revoked',
  'chat_deleted',
  'recording_removed',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** What an event writes instead when the one drawn finds nothing to act on (no transcript left to advance…). */
export const FALLBACK: Record<ActivityKind, ActivityKind> = {
  meeting_captured: 'meeting_captured',
  call_captured: 'call_captured',
  transcript_advanced: 'meeting_captured',
  evaluation_advanced: 'call_captured',
  answers_filled: 'meeting_captured',
  email_captured: 'email_captured',
  email_captured_late: 'email_captured_late',
  chat_started: 'chat_started',
  chat_message_arrived: 'chat_started',
  chat_message_edited: 'chat_started',
  chat_message_revoked: 'chat_started',
  chat_deleted: 'chat_started',
  recording_removed: 'call_captured',
};

/** What one event wrote: its kind (the fallback's, when the drawn kind had nothing to act on), what it acted on, what it created. */
export interface Written {
  kind: ActivityKind;
  /** Public id of the record or conversation written. */
  subject: string;
  /** Public ids of the rows it created (gone again when its transaction rolls back). */
  created: string[];
  /** Internal id of a record it captured (one the run may remove later). */
  captured?: string;
}
