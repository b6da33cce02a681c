import { AnswerDto, OverallEvaluationDto, TranscriptDto } from './recording.dto';
import { AnswersRow, EvaluationRow, TranscriptRow } from './recordings.repository';

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
    // Only what the contract allows, whatever the capture stored: utterances with their text and whole-millisecond times (a
    // stored value that is not a list has none), a speaker that is not a string is null (recording.sql.ts renders the same).
    utterances: available && Array.isArray(row.utterances) ? row.utterances.filter(isUtterance).map(presentUtterance) : [],
    created_at: available ? row.created_at : null,
    updated_at: available ? row.updated_at : null,
  };
}

type StoredUtterance = NonNullable<TranscriptRow['utterances']>[number];

function isUtterance(u: unknown): u is StoredUtterance {
  const { text, start_ms, end_ms } = (u ?? {}) as Partial<StoredUtterance>;
  return typeof u === 'object' && typeof text === 'string' && Number.isInteger(start_ms) && Number.isInteger(end_ms);
}

function presentUtterance({ speaker, text, start_ms, end_ms }: StoredUtterance) {
  return { speaker: typeof speaker === 'string' ? speaker : null, text, start_ms, end_ms };
}
