import { Faker } from '@faker-js/faker';
import { EntityManager } from 'typeorm';
import { ActivityKind, FALLBACK, Written } from './activity-kinds';
import { ActivityPool } from './activity-pool';
import { ConversationCaptures } from './conversation-captures';
import { RecordingCaptures } from './recording-captures';

export { ACTIVITY_KINDS, FALLBACK, type ActivityKind, type Written } from './activity-kinds';
export { referencePool, type ActivityPool } from './activity-pool';

/**
 * The writes of a capture system, one event at a time, inside the transaction `m` of that
 * event, as the schema owner, through the factories (public ids minted as everywhere else;
 * derived fields left to the database: audience from participants, a conversation's activity
 * from its messages by the triggers). An event that changes something that exists first
 * claims its row (`FOR NO KEY UPDATE … SKIP LOCKED`, re-checking that it still qualifies), as
 * a pool of capture workers would: concurrent events never act on one record, chat or thread
 * at once, so no two transactions both advance one transcript, and the triggers that derive a
 * conversation's activity never run beside another insert into the same conversation (they
 * aggregate the messages their own statement sees: two concurrent, unclaimed inserts into one
 * chat were seen to leave `last_message_at` at the earlier message when the later one committed
 * first). The record's own `updated_at` is never written here (the change feed's triggers own it).
 */
export class CaptureEvents {
  private readonly recordingEvents: RecordingCaptures;
  private readonly conversationEvents: ConversationCaptures;

  constructor(
    m: EntityManager,
    companyId: string,
    f: Faker,
    pool: ActivityPool,
    /** The run's start (a late e-mail was sent before it) and the records it captured (removed first). */
    run: { startedAt: Date; captured: readonly string[] },
  ) {
    this.recordingEvents = new RecordingCaptures(m, companyId, f, pool, run);
    this.conversationEvents = new ConversationCaptures(m, companyId, f, pool, run);
  }

  /** Writes one event of `kind`, or of its fallback when there is nothing to act on. */
  async write(kind: ActivityKind): Promise<Written> {
    const written = (await this.attempt(kind)) ?? (await this.attempt(FALLBACK[kind]));
    if (!written) throw new Error(`${kind}: nothing to act on, and its fallback ${FALLBACK[kind]} neither`);
    return written;
  }

  private attempt(kind: ActivityKind): Promise<Written | null> {
    switch (kind) {
      case 'meeting_captured':
      case 'call_captured':
        return this.recordingEvents.captured(kind === 'meeting_captured' ? 'meeting' : 'call');
      case 'transcript_advanced':
        return this.recordingEvents.transcriptAdvanced();
      case 'evaluation_advanced':
        return this.recordingEvents.evaluationAdvanced();
      case 'answers_filled':
        return this.recordingEvents.answersFilled();
      case 'email_captured':
        return this.conversationEvents.emailCaptured(false);
      case 'email_captured_late':
        return this.conversationEvents.emailCaptured(true);
      case 'chat_started':
        return this.conversationEvents.chatStarted();
      case 'chat_message_arrived':
        return this.conversationEvents.chatMessageArrived();
      case 'chat_message_edited':
      case 'chat_message_revoked':
        return this.conversationEvents.chatMessageChanged(kind);
      case 'chat_deleted':
        return this.conversationEvents.chatDeleted();
      case 'recording_removed':
        return this.recordingEvents.removed();
    }
  }
}
