import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { principalOf, RequestStore } from '../common/http/request-context';
import { AppConfig } from '../config/app-config';
import { CHAT_CHANNEL } from '../chat/chat-channel';
import { ConversationChannel } from '../conversations/conversation-channel';
import { ConversationsRepository, MessageRowBase, PositionedRow } from '../conversations/conversations.repository';
import { ConversationPart } from '../conversations/list-conversations.query';
import { ConversationRenderer } from '../conversations/conversation-renderer';
import { storedColumns } from '../conversations/conversations.service';
import { EMAIL_CHANNEL } from '../emails/email-channel';
import { RecordingPart } from '../recordings/recording.vocabulary';
import { RecordingsRepository } from '../recordings/recordings.repository';
import { RecordingsService } from '../recordings/recordings.service';
import { ExportPart, ExportType, exportTypeOf } from './export.query';

/** Records read and written per batch. */
const BATCH = 100;
/**
 * Meetings or calls per batch when their transcripts come with them: a transcript of 1,000
 * utterances is some 150 KB of JSON, so a batch of 100 was 15 MB held twice per stream (the
 * batch written, waiting in the socket's buffer for a slow reader, and the next one read ahead):
 * four slow exports took the service from 155 to 357 MB (bench:neighbours). Ten keep it near 3 MB.
 */
const BATCH_WITH_TRANSCRIPTS = 10;
/** Messages a batch of conversations holds at most (a first conversation with more comes alone, its messages read in slices). */
const BATCH_MESSAGES = 2000;
/** At most about this many bytes of stored messages in one batch (a conversation with more is a batch of its own). */
const BATCH_BYTES = 4 * 1024 * 1024;

/** What an export reads: its collections in order, where to resume, and the parts to embed. */
export interface ExportJob {
  types: readonly ExportType[];
  after: string | null;
  parts: readonly ExportPart[];
}

/** The stream the records go to, as the reading sees it (NdjsonStream). */
interface Reader {
  /** Throws once the stream was cut. */
  goOn(): void;
  /** Ends the stream for what stopped the reading (a cut, or an error). */
  fail(error: unknown): void;
}

/** A batch read from the snapshot, rendered when `lines` is called. */
interface Batch {
  lines: () => string[];
  last: string | null;
  done: boolean;
}

/** The records of an export, read from its snapshot batch by batch, each collection as its list shows it. */
@Injectable()
export class ExportBatches {
  constructor(
    private readonly recordings: RecordingsService,
    private readonly recordingRows: RecordingsRepository,
    private readonly renderer: ConversationRenderer,
    private readonly conversationRows: ConversationsRepository,
    private readonly cls: ClsService<RequestStore>,
    private readonly config: AppConfig,
  ) {}

  /**
   * Hands every record of the job to `take`, one batch of lines at a time, each batch read only
   * once the one before was taken by the client (`take` resolves then), and read while that one
   * is rendered and goes out. A cut or an error stops the reading and is handed to
   * `stream.fail` first; resolves only once no batch is being read any more, so the transaction
   * ends after the last of its statements.
   */
  async readAll(job: ExportJob, stream: Reader, take: (type: ExportType, lines: string[]) => Promise<void>): Promise<void> {
    const goOn = () => stream.goOn();
    // The batch being read ahead: the transaction ends only once it has (a cut leaves none running).
    let next: Promise<unknown> | undefined;
    try {
      for (const type of job.types) {
        let ahead: Promise<Batch>;
        const read = (after: string | null) => {
          ahead = this.batch(type, after, job.parts, goOn);
          ahead.catch(() => undefined); // awaited below; a cut meanwhile must not leave it unhandled
          next = ahead;
        };
        read(type === exportTypeOf(job.after ?? '') ? job.after : null);
        for (;;) {
          goOn();
          const batch = await ahead!; // one statement or two: a cut meanwhile is seen right after
          goOn();
          // The database reads the following batch while this one is rendered and goes to the client.
          if (!batch.done) read(batch.last);
          const lines = batch.lines();
          if (lines.length) await take(type, lines);
          if (batch.done) break;
        }
      }
      goOn();
    } catch (error) {
      stream.fail(error); // first: a batch still being read stops before its next statement
    } finally {
      await next?.catch(() => undefined);
    }
  }

  /**
   * The next batch of `type` after `after`, as the database gives it: `lines` renders each record
   * as its list shows it with `parts`, as JSON text, when called (the next batch is read
   * meanwhile); `done` when no record of the type follows it. `goOn` throws once the stream was
   * cut, so a batch read ahead stops between its statements.
   */
  private async batch(type: ExportType, after: string | null, parts: readonly ExportPart[], goOn: () => void): Promise<Batch> {
    const company = principalOf(this.cls).companyId;
    if (type === 'meeting' || type === 'call') {
      const recordParts = parts.filter((p): p is RecordingPart => p !== 'messages');
      const take = recordParts.includes('transcript') ? BATCH_WITH_TRANSCRIPTS : BATCH;
      const rows = await this.recordingRows.exportPage(company, type, after, take, recordParts);
      return {
        lines: () => this.recordings.documents(rows).map((d) => d.text),
        last: rows[rows.length - 1]?.public_id ?? null,
        done: rows.length < take,
      };
    }
    const channel = (type === 'email' ? EMAIL_CHANNEL : CHAT_CHANNEL) as ConversationChannel<
      PositionedRow,
      MessageRowBase,
      unknown,
      unknown
    >;
    const conversationParts = parts.filter((p): p is ConversationPart => p === 'messages');
    const rows = await this.conversationRows.exportPage(channel.tables, company, after, BATCH, storedColumns(channel, conversationParts));
    goOn();
    // The conversations whose messages fit BATCH_MESSAGES (read live) and BATCH_BYTES (stored), at least one; the rest in the next
    // batch. Each line is bounded as a page is (PAGE_BYTES_MAX): a larger conversation carries its first messages and their cursor.
    const read = await this.renderer.render(channel, rows, conversationParts, {
      messages: BATCH_MESSAGES,
      bytes: BATCH_BYTES,
      conversation: this.config.pageBytesMax,
    });
    // One snapshot: nothing read from it is removed from it.
    if (read.gone.size) throw new Error('a conversation of the export snapshot was not found in it');
    return {
      lines: () => read.render().map((d) => d.text),
      last: read.count ? rows[read.count - 1].public_id : after,
      done: rows.length < BATCH && read.count === rows.length,
    };
  }
}
