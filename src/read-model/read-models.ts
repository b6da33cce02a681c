import { DocumentRefresher } from './document-refresher';
import { RefreshRun, refreshInTurn } from './refresh-batches';

/**
 * The read models together: meetings and calls (recording_documents) and e-mail and chat
 * conversations (conversation_documents), each kept by its own refresher. What the worker's
 * loop and `documents:refresh` run (ReadModelModule builds it).
 */
export class ReadModels {
  constructor(readonly refreshers: readonly DocumentRefresher[]) {}

  /**
   * Every one, a batch of each in turn, until nothing waits in any (or `stop()` says so): a
   * backlog in one (a release that changed the recordings' format) never holds another back.
   */
  async refreshAll(stop: () => boolean = () => false): Promise<RefreshRun> {
    return refreshInTurn(this.refreshers, stop);
  }

  /** Adds an empty document for every record and conversation without one (written while the capture was off). */
  async addMissing(): Promise<number> {
    let added = 0;
    for (const refresher of this.refreshers) added += await refresher.addMissing();
    return added;
  }

  /** Documents waiting to be written. */
  async waiting(): Promise<number> {
    let waiting = 0;
    for (const refresher of this.refreshers) waiting += await refresher.waiting();
    return waiting;
  }
}
