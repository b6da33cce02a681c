import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AccountDto, DATE_TIME, UserRefDto } from '../common/openapi/resources.dto';
import { ListEnvelope, PageEnvelope, SingleEnvelope } from '../common/openapi/envelopes';
import { idPattern } from '../common/ids/public-id';
import {
  Audience,
  AUDIENCES,
  EVALUATION_STATUSES,
  EvaluationStatus,
  MEDIA_TYPES,
  MEETING_TYPES,
  MediaType,
  MeetingType,
  PARTICIPANT_KINDS,
  ParticipantKind,
  QUESTION_TYPES,
  QuestionType,
  RecordingKind,
  RecordingStatus,
  RECORDING_STATUSES,
  TEAM_ROLES,
  TeamRole,
  TRANSCRIPT_STATUSES,
  TRANSCRIPT_VARIANTS,
  TranscriptStatus,
  TranscriptVariant,
} from './recording.vocabulary';

/**
 * Response schemas of the meetings and calls routes: the interface description is generated
 * from these classes; PostgreSQL renders the answers (recording.sql.ts), and every test answer
 * is validated against the served document.
 */

export class IdNameDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
}

export class ParticipantDto {
  @ApiPropertyOptional() display_name?: string;
  @ApiPropertyOptional({ format: 'email', description: 'Meetings.' }) email?: string;
  @ApiPropertyOptional({ description: 'Calls.' }) phone?: string;
  @ApiProperty({ enum: PARTICIPANT_KINDS }) kind: ParticipantKind;
}

export class TeamDto {
  @ApiProperty({ pattern: idPattern('team') }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: TEAM_ROLES }) role: TeamRole;
  @ApiProperty() is_default: boolean;
}

export class OwnerDto {
  @ApiProperty({ pattern: idPattern('user') }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty({ type: TeamDto, nullable: true, description: "The owner's default team, else their first team, else null." })
  team: TeamDto | null;
}

export class TemplateAnswerDto {
  @ApiProperty({ pattern: idPattern('question'), description: 'The question id.' }) field: string;
  @ApiProperty() question: string;
  @ApiProperty() answer: string;
}

export class TemplateDto {
  @ApiProperty({ pattern: idPattern('template') }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: [TemplateAnswerDto] }) answers: TemplateAnswerDto[];
}

export class CustomerQuestionDto {
  @ApiProperty() question: string;
  @ApiProperty() category: string;
}

export class SpeakingUserDto {
  @ApiProperty({ type: UserRefDto }) user: UserRefDto;
  @ApiProperty({ type: 'integer' }) duration_seconds: number;
}

export class SpeakingDurationDto {
  @ApiProperty({ type: [SpeakingUserDto] }) users: SpeakingUserDto[];
  @ApiProperty({ type: 'integer', nullable: true }) others_seconds: number | null;
}

export class EnablementDto {
  @ApiProperty({ type: 'string', nullable: true }) next_steps: string | null;
  @ApiProperty({ type: 'string', enum: MEETING_TYPES, nullable: true }) meeting_type: MeetingType | null;
  @ApiProperty({ type: SpeakingDurationDto }) speaking_duration: SpeakingDurationDto;
}

export class EvaluationSummaryDto {
  @ApiProperty({ enum: EVALUATION_STATUSES }) status: EvaluationStatus;
  @ApiProperty({ type: 'string', nullable: true }) justification: string | null;
}

export class SkillScoreDto {
  @ApiProperty({ type: UserRefDto }) user: UserRefDto;
  @ApiProperty({ type: IdNameDto }) skill: IdNameDto;
  @ApiProperty({ type: 'integer' }) score: number;
  @ApiProperty({ type: 'string', nullable: true }) justification: string | null;
}

export class TranscriptSummaryDto {
  @ApiProperty() available: boolean;
  @ApiProperty({ enum: TRANSCRIPT_STATUSES }) status: TranscriptStatus;
}

export class BotHistoryEntryDto {
  @ApiProperty({ type: 'string', nullable: true }) code: string | null;
  @ApiProperty({ type: 'string', nullable: true }) subcode: string | null;
  @ApiProperty(DATE_TIME) occurred_at: string;
}

export class OverallEvaluationDto {
  @ApiProperty({ type: 'string', nullable: true, description: 'Null when no evaluation exists yet.' }) id: string | null;
  @ApiProperty({ enum: ['overall_meeting_evaluation'] }) object: 'overall_meeting_evaluation';
  @ApiProperty({ description: 'The meeting id or the call id, per the collection addressed.' }) meeting_id: string;
  @ApiProperty({ enum: EVALUATION_STATUSES }) status: EvaluationStatus;
  @ApiProperty({ type: 'integer', nullable: true }) score: number | null;
  @ApiProperty({ type: 'string', nullable: true }) justification: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) created_at: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) updated_at: string | null;
}

export class QuestionDto {
  @ApiProperty({ pattern: idPattern('question') }) id: string;
  @ApiProperty() text: string;
  @ApiProperty({ enum: QUESTION_TYPES }) type: QuestionType;
  @ApiProperty({ type: 'integer' }) order: number;
}

export class AnswerDto {
  @ApiProperty({ pattern: idPattern('answer') }) id: string;
  @ApiProperty({ enum: ['meeting_answer'] }) object: 'meeting_answer';
  @ApiProperty({ type: QuestionDto }) question: QuestionDto;
  @ApiProperty() answer: string;
  @ApiProperty(DATE_TIME) updated_at: string;
}

export class UtteranceDto {
  @ApiProperty({ type: 'string', nullable: true }) speaker: string | null;
  @ApiProperty() text: string;
  @ApiProperty({ type: 'integer' }) start_ms: number;
  @ApiProperty({ type: 'integer' }) end_ms: number;
}

export class TranscriptDto {
  @ApiProperty({ enum: ['transcript'] }) object: 'transcript';
  @ApiProperty({ description: 'The meeting id or the call id, per the collection addressed.' }) meeting_id: string;
  @ApiProperty() available: boolean;
  @ApiProperty({ enum: TRANSCRIPT_STATUSES }) status: TranscriptStatus;
  @ApiProperty({ type: 'string', enum: TRANSCRIPT_VARIANTS, nullable: true }) variant: TranscriptVariant | null;
  @ApiProperty({ type: [UtteranceDto], description: 'Empty when unavailable.' }) utterances: UtteranceDto[];
  @ApiProperty({ ...DATE_TIME, nullable: true }) created_at: string | null;
  @ApiProperty({ ...DATE_TIME, nullable: true }) updated_at: string | null;
}

/** The parts `include` asked for, each exactly as its own route answers it for the record. */
export class RecordingIncludedDto {
  @ApiPropertyOptional({ type: OverallEvaluationDto, description: 'With `include=evaluation`: what `/evaluations/overall` answers.' })
  evaluation?: OverallEvaluationDto;
  @ApiPropertyOptional({ type: [AnswerDto], description: 'With `include=answers`: the `data` of `/answers`.' })
  answers?: AnswerDto[];
  @ApiPropertyOptional({
    type: TranscriptDto,
    description: 'With `include=transcript`: what `/transcript` answers (`available: false` when unreadable).',
  })
  transcript?: TranscriptDto;
}

/** A call; a meeting has the same fields plus `bot_history`. */
export class CallDto {
  @ApiProperty({ pattern: idPattern('call') }) id: string;
  @ApiProperty({ enum: ['call'] }) object: RecordingKind;
  @ApiProperty() title: string;
  @ApiProperty({ enum: RECORDING_STATUSES }) status: RecordingStatus;
  @ApiProperty({ enum: MEDIA_TYPES, description: 'Media the record was captured as.' }) type: MediaType;
  @ApiProperty({ enum: AUDIENCES }) audience: Audience;
  @ApiProperty(DATE_TIME) meeting_at: string;
  @ApiProperty({ type: 'integer' }) duration_seconds: number;
  @ApiProperty() no_show: boolean;
  @ApiProperty({ type: [ParticipantDto] }) participants: ParticipantDto[];
  @ApiProperty({ type: OwnerDto }) owner: OwnerDto;
  @ApiProperty({ type: TemplateDto, nullable: true }) template: TemplateDto | null;
  @ApiProperty({ type: [IdNameDto] }) tags: IdNameDto[];
  @ApiProperty({ type: [CustomerQuestionDto] }) customer_questions: CustomerQuestionDto[];
  @ApiProperty({ type: [IdNameDto] }) competitors: IdNameDto[];
  @ApiProperty({ type: EnablementDto, nullable: true }) enablement: EnablementDto | null;
  @ApiProperty({ type: [AccountDto] }) accounts: AccountDto[];
  @ApiProperty({ type: EvaluationSummaryDto }) overall_evaluation: EvaluationSummaryDto;
  @ApiProperty({ type: [SkillScoreDto] }) skill_scores: SkillScoreDto[];
  @ApiProperty({ type: TranscriptSummaryDto }) transcript: TranscriptSummaryDto;
  @ApiProperty(DATE_TIME) created_at: string;
  @ApiProperty(DATE_TIME) updated_at: string;
  @ApiPropertyOptional({
    type: () => RecordingIncludedDto,
    description: 'Only with `include`: the parts asked for (`evaluation`, `answers`, `transcript`).',
  })
  included?: RecordingIncludedDto;
}

export class MeetingDto extends CallDto {
  @ApiProperty({ pattern: idPattern('meeting') }) declare id: string;
  @ApiProperty({ enum: ['meeting'] }) declare object: 'meeting';
  @ApiProperty({ type: [BotHistoryEntryDto], description: 'Meetings only; absent on calls.' }) bot_history: BotHistoryEntryDto[];
}

export const MeetingEnvelope = SingleEnvelope(MeetingDto, 'MeetingEnvelope');
export const MeetingListEnvelope = PageEnvelope(MeetingDto, 'MeetingListEnvelope');
export const CallEnvelope = SingleEnvelope(CallDto, 'CallEnvelope');
export const CallListEnvelope = PageEnvelope(CallDto, 'CallListEnvelope');
export const OverallEvaluationEnvelope = SingleEnvelope(OverallEvaluationDto, 'OverallEvaluationEnvelope');
export const AnswerListEnvelope = ListEnvelope(AnswerDto, 'AnswerListEnvelope');
export const TranscriptEnvelope = SingleEnvelope(TranscriptDto, 'TranscriptEnvelope');
