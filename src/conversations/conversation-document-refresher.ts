import { OwnerPool, Sql } from '../database/owner-pool';
import { lockWaiting, RefreshRun, refreshInTurn } from '../database/read-model';
import { ConversationChannel } from './conversation-channel';
import { conversationsByIdStatement, MessageRowBase, messagesOfStatement, PositionedRow } from './conversations.repository';
import { presentedByConversation, renderConversation } from './conversations.service';

/** Conversations one refresher transaction renders at most (each with all its messages). */
export const CONVERSATION_REFRESH_BATCH = 100;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyChannel = ConversationChannel<any, any, any, any>;

/**
 * Fills the read model of conversations (conversation_documents, see its migration): documents
 * emptied by a write, added empty for a new conversation, or written in another format; each
 * rendered with the channel's own presenters, exactly as a reader renders it live. The same
 * rule as the recordings' refresher (DocumentRefresher): as the schema owner, one transaction
 * per batch, lock the batch's rows skipping those a writer or another refresher holds, read with
 * snapshots taken after the locks (a write that emptied them before is seen; a write after waits
 * for this commit to empty them again), write.
 */
export class ConversationDocumentRefresher {
  constructor(
    private readonly db: OwnerPool,
    private readonly channels: readonly AnyChannel[],
  ) {}

  /**
   * One batch over the channels in turn; `afterLock` runs between locking and rendering (tests
   * force interleavings there). `rendered + removed` under `batch`: nothing more was waiting.
   */
  async refreshBatch(batch = CONVERSATION_REFRESH_BATCH, afterLock?: (ids: string[]) => Promise<void>): Promise<RefreshRun> {
    return this.db.transaction(async (client) => {
      const locked: Array<{ channel: AnyChannel; ids: string[] }> = [];
      let count = 0;
      for (const channel of this.channels) {
        if (count >= batch) break;
        const ids = await lockWaiting(client, waitingRows(channel), batch - count);
        locked.push({ channel, ids });
        count += ids.length;
      }
      if (afterLock) await afterLock(locked.flatMap((l) => l.ids));
      const run: RefreshRun = { rendered: 0, removed: 0, batches: 1 };
      for (const { channel, ids } of locked) {
        if (!ids.length) continue;
        const documents = await renderStored(client, channel, ids);
        const { rowCount } = await client.query(
          `UPDATE conversation_documents d SET document = x.document, messages = x.messages, format = $4
           FROM unnest($1::bigint[], $2::text[], $3::text[]) x (id, document, messages)
           WHERE d.channel = $5 AND d.conversation_id = x.id`,
          [
            documents.map((d) => d.id),
            documents.map((d) => d.document),
            documents.map((d) => d.messages),
            channel.documentFormat,
            channel.tables.channel,
          ],
        );
        run.rendered += rowCount ?? 0;
        const { rowCount: removed } = await client.query(
          `DELETE FROM conversation_documents d WHERE d.channel = $1 AND d.conversation_id = ANY ($2::bigint[])
             AND NOT EXISTS (SELECT 1 FROM ${channel.tables.conversations} c WHERE c.id = d.conversation_id)`,
          [channel.tables.channel, ids],
        );
        run.removed += removed ?? 0;
      }
      return run;
    });
  }

  /** Batches until nothing waits (or `stop()` says so); what they did, summed. */
  async refreshAll(stop: () => boolean = () => false, batch = CONVERSATION_REFRESH_BATCH): Promise<RefreshRun> {
    return refreshInTurn([{ refreshBatch: (size) => this.refreshBatch(size), batch }], stop);
  }

  /** Adds an empty document for every conversation without one (written while the capture was off). */
  async addMissing(): Promise<number> {
    let added = 0;
    for (const { tables } of this.channels) {
      const { rowCount } = await this.db.query(
        `INSERT INTO conversation_documents (channel, conversation_id, company_id)
         SELECT $1, c.id, c.company_id FROM ${tables.conversations} c
         WHERE NOT EXISTS (SELECT 1 FROM conversation_documents d WHERE d.channel = $1 AND d.conversation_id = c.id)
         ON CONFLICT DO NOTHING`,
        [tables.channel],
      );
      added += rowCount ?? 0;
    }
    return added;
  }

  /** Documents waiting to be written (empty, or of another format). */
  async waiting(): Promise<number> {
    let waiting = 0;
    for (const channel of this.channels) {
      const { rows } = await this.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM conversation_documents WHERE channel = $1 AND (document IS NULL OR format < $2 OR format > $2)`,
        [channel.tables.channel, channel.documentFormat],
      );
      waiting += rows[0].n;
    }
    return waiting;
  }
}

/** A channel's rows of the read model, as lockWaiting finds those to write. */
const waitingRows = (channel: AnyChannel) => ({
  table: 'conversation_documents',
  key: 'conversation_id',
  format: channel.documentFormat,
  part: { column: 'channel', value: channel.tables.channel },
});

/**
 * The conversations `ids` of `channel` as a reader renders them live (renderConversation): the
 * conversation's JSON text, and its messages' as `include=messages` embeds them. Conversations
 * gone meanwhile are not among them.
 */
async function renderStored(
  client: Sql,
  channel: AnyChannel,
  ids: string[],
): Promise<Array<{ id: string; document: string; messages: string }>> {
  const conversations = await client.query<PositionedRow>(conversationsByIdStatement(channel.tables, ids, null));
  const messages = await client.query<MessageRowBase & { of_conversation: string }>(
    messagesOfStatement(channel.tables, conversations.rows, null),
  );
  const byConversation = presentedByConversation(channel, conversations.rows, messages.rows);
  return conversations.rows.map((row) => ({
    id: row.id,
    document: renderConversation(channel, row).text,
    messages: JSON.stringify(byConversation.get(row.id)),
  }));
}
