import { AnswerDto, CallDto, MeetingDto, OverallEvaluationDto, ParticipantDto, TranscriptDto } from './recording.dto';
import { AnswersRow, EvaluationRow, RecordingRow, StoredParticipant, TranscriptRow } from './recordings.repository';

/**
 * The wire format of meetings and calls, defined once. Fields in the spec's order; a call
 * has no `bot_history` key at all.
 */
export function presentRecording(row: RecordingRow): CallDto | MeetingDto {
  const transcriptAvailable = row.transcript_status === 'completed';
  const evaluationStatus = row.evaluation_status ?? 'not_started';
  return {
    id: row.public_id,
    object: row.kind,
    title: row.title,
    status: row.status,
    type: row.media_type,
    audience: row.audience,
    meeting_at: row.meeting_at,
    duration_seconds: row.duration_seconds,
    no_show: row.no_show,
    participants: row.participants.map(presentParticipant),
    owner: row.owner,
    template: row.template ? { ...row.template, answers: row.template_answers } : null,
    tags: row.tags,
    customer_questions: row.customer_questions.map(({ question, category }) => ({ question, category })),
    competitors: row.competitors,
    enablement: row.enablement
      ? {
          next_steps: row.enablement.next_steps,
          meeting_type: row.enablement.meeting_type,
          speaking_duration: { users: row.speaking_durations, others_seconds: row.enablement.others_seconds },
        }
      : null,
    accounts: row.accounts,
    overall_evaluation: {
      status: evaluationStatus,
      justification: evaluationStatus === 'not_started' ? null : row.evaluation_justification,
    },
    skill_scores: row.skill_scores,
    transcript: { available: transcriptAvailable, status: row.transcript_status },
    ...(row.kind === 'meeting'
      ? { bot_history: (row.bot_history ?? []).map(({ code, subcode, occurred_at }) => ({ code, subcode, occurred_at })) }
      : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const PARTICIPANT_FIELDS = ['display_name', 'email', 'phone'] as const;

/** Only the documented participant fields, each only when recorded. */
function presentParticipant(p: StoredParticipant): ParticipantDto {
  const out: Pick<ParticipantDto, (typeof PARTICIPANT_FIELDS)[number]> = {};
  for (const key of PARTICIPANT_FIELDS) {
    const value = p[key];
    if (typeof value === 'string') out[key] = value;
  }
  return { ...out, kind: p.kind ?? 'external' };
}

/** Not started (no evaluation yet, or one not started): id, score, justification and timestamps null. */
export function presentEvaluation(row: EvaluationRow): OverallEvaluationDto {
  const started = row.status !== null && row.status !== 'not_started';
  return {
    id: started ? row.evaluation_id : null,
    object: 'overall_meeting_evaluation',
    meeting_id: row.public_id,
    status: row.status ?? 'not_started',
    score: started ? row.score : null,
    justification: started ? row.justification : null,
    created_at: started ? row.created_at : null,
    updated_at: started ? row.updated_at : null,
  };
}

export function presentAnswers(row: AnswersRow): AnswerDto[] {
  return row.answers.map((a) => ({ id: a.id, object: 'meeting_answer', question: a.question, answer: a.answer, updated_at: a.updated_at }));
}

/** Unavailable: `available` false with the current status, no variant, no utterances, null timestamps. */
export function presentTranscript(row: TranscriptRow): TranscriptDto {
  const available = row.transcript_status === 'completed' && row.variant !== null;
  return {
    object: 'transcript',
    meeting_id: row.public_id,
    available,
    status: row.transcript_status,
    variant: available ? row.variant : null,
    utterances: available
      ? (row.utterances ?? []).map(({ speaker, text, start_ms, end_ms }) => ({ speaker: speaker ?? null, text, start_ms, end_ms }))
      : [],
    created_at: available ? row.created_at : null,
    updated_at: available ? row.updated_at : null,
  };
}
