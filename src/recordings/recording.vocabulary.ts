/**
 * The closed vocabularies of meetings and calls, each spelled once: the DTOs document them,
 * the list query accepts them, the rows are typed by them and the seeders write them. The
 * recordings migration spells them again in its CHECK constraints (a migration is history);
 * test/medium/vocabularies.medium-spec.ts holds the database to exactly these values.
 */

/** `recordings.kind`; a record's `object` is its kind. */
export const RECORDING_KINDS = ['meeting', 'call'] as const;
export type RecordingKind = (typeof RECORDING_KINDS)[number];

/** Parts a meeting or a call can embed with `include` (each what its own route answers), in the order `included` lists them. */
export const RECORDING_PARTS = ['evaluation', 'answers', 'transcript'] as const;
export type RecordingPart = (typeof RECORDING_PARTS)[number];

/** `status` of a record: only completed records are captured. */
export const RECORDING_STATUSES = ['completed'] as const;
export type RecordingStatus = (typeof RECORDING_STATUSES)[number];

/** `type`: the media a record was captured as. */
export const MEDIA_TYPES = ['video', 'audio'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** `audience`: external exactly when someone from outside the company took part. */
export const AUDIENCES = ['internal', 'external'] as const;
export type Audience = (typeof AUDIENCES)[number];

/** `kind` of a listed participant: only outside participants are listed. */
export const PARTICIPANT_KINDS = ['external'] as const;
export type ParticipantKind = (typeof PARTICIPANT_KINDS)[number];

export const TRANSCRIPT_STATUSES = ['not_started', 'processing', 'completed', 'failed'] as const;
export type TranscriptStatus = (typeof TRANSCRIPT_STATUSES)[number];

/** The variants a completed transcript may have, in order of preference: the enhanced one is shown when there is one. */
export const TRANSCRIPT_VARIANTS = ['enhanced', 'original'] as const;
export type TranscriptVariant = (typeof TRANSCRIPT_VARIANTS)[number];

/** `format` of `GET …/transcript/captions`: the utterances as WebVTT (the default), SubRip or plain text (transcript-renditions.ts). */
export const CAPTION_FORMATS = ['vtt', 'srt', 'text'] as const;
export type CaptionFormat = (typeof CAPTION_FORMATS)[number];

export const EVALUATION_STATUSES = ['not_started', 'processing', 'completed', 'failed'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];

/** `enablement.meeting_type`. */
export const MEETING_TYPES = [
  'qualification',
  'negotiation',
  'proposal',
  'closing',
  'technical_meeting',
  'questions_clarifications',
] as const;
export type MeetingType = (typeof MEETING_TYPES)[number];

/** `type` of a template question. */
export const QUESTION_TYPES = ['text', 'option', 'multi_select', 'boolean', 'number'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

/** `role` of a user in a team (the owner's team). */
export const TEAM_ROLES = ['participant', 'leadership', 'observer'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];
