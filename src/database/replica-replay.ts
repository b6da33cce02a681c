import { Injectable } from '@nestjs/common';
import { Client } from 'pg';
import { AdminError } from '../common/errors/admin-error';
import { AppConfig } from '../config/app-config';
import { DatabaseUrls } from '../config/database-urls';
import { lsnOf, serverName } from './wal-positions';

const POLL_MS = 50;

/**
 * For the admin commands that take access away (revoke, disable, end a secret, narrow the
 * addresses): the API authenticates each request on the server it reads from, a hot standby of
 * DATABASE_REPLICA_URLS, so such a command returns only once every standby replayed it. After
 * the change committed, `everywhere` reads the primary's WAL insert position (past the commit
 * record) and waits until each standby's replay reached it, up to REPLICA_REVOCATION_WAIT_SECONDS
 * in all; past that it fails loudly (REPLICA_BEHIND, naming the standby and how far it got). A
 * URL whose server is not in recovery is no standby of this primary (promoted, or another
 * server): the API does not read from it (read-replicas.ts), and it is not waited for. Every
 * standby the primary shows replicating (`pg_stat_replication`, to a role with `pg_monitor`) is
 * waited for too, URL or not. Commands that give access (a new client, secret or feature) wait the
 * same way, so the new credentials work on every instance when they return; for them a standby
 * behind is a warning (AdminCommand.replayedOrWarn).
 */
@Injectable()
export class ReplicaReplay {
  constructor(
    private readonly urls: DatabaseUrls,
    private readonly config: AppConfig,
  ) {}

  /** `consequence`: what a standby behind means, for the message (a revocation's by default). */
  async everywhere(consequence = 'tokens may still be accepted there until it does'): Promise<void> {
    const { urls, revocationWaitSeconds } = this.config.database.replicas;
    const primary = new Client({
      connectionString: this.urls.owner,
      application_name: 'conversation-read-api-admin',
      connectionTimeoutMillis: revocationWaitSeconds * 1000,
      query_timeout: revocationWaitSeconds * 1000,
    });
    await primary.connect();
    try {
      const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
      const target = lsnOf(rows[0].lsn);
      const deadline = Date.now() + revocationWaitSeconds * 1000;
      // The standbys the primary sees, whether or not this command was given their URLs (it may
      // run where DATABASE_REPLICA_URLS is not set, while the API reads from them).
      await Promise.all([
        ...urls.map((url) => this.replayed(url, target, deadline, revocationWaitSeconds, consequence)),
        this.streamingReplayed(primary, target, deadline, revocationWaitSeconds, consequence),
      ]);
    } finally {
      await primary.end().catch(() => undefined);
    }
  }

  /**
   * Every standby streaming from the primary, as the primary sees them (`pg_stat_replication`):
   * one URL may stand for several standbys (a load-balanced read-only Service), and the standby a
   * connection to it reaches is not the one the next request reaches. The replay positions there
   * are shown only to a role with `pg_monitor` (else null): with it, every standby streaming from
   * the primary is waited for (a delayed or disaster-recovery standby too); without it, the URLs'
   * answers are all there is.
   */
  private async streamingReplayed(
    primary: Client,
    target: bigint,
    deadline: number,
    waitSeconds: number,
    consequence: string,
  ): Promise<void> {
    for (;;) {
      const { rows } = await primary.query<{ name: string; lsn: string }>(
        // Physical standbys only, catching up or streaming (one that just reconnected is the one
        // behind); a logical consumer (a subscription, change data capture) serves no reads.
        `SELECT coalesce(nullif(r.application_name, ''), 'pid ' || r.pid) || coalesce(' (' || host(r.client_addr) || ')', '') AS name,
           r.replay_lsn::text AS lsn
         FROM pg_stat_replication r
         WHERE r.replay_lsn IS NOT NULL AND r.state IN ('startup', 'catchup', 'streaming')
           AND NOT EXISTS (SELECT 1 FROM pg_replication_slots s WHERE s.active_pid = r.pid AND s.slot_type = 'logical')`,
      );
      const behind = rows.filter((r) => lsnOf(r.lsn) < target);
      if (!behind.length) return;
      if (Date.now() >= deadline) {
        throw new AdminError(
          'REPLICA_BEHIND',
          `committed on the primary, but the standby ${behind[0].name} streaming from it has not replayed it after ${waitSeconds} s (it replayed up to ${behind[0].lsn}; the change is at ${formatLsn(target)}): ${consequence}`,
        );
      }
      await sleep(POLL_MS);
    }
  }

  private async replayed(url: string, target: bigint, deadline: number, waitSeconds: number, consequence: string): Promise<void> {
    const name = serverName(url);
    let seen = 'nothing (it did not answer)';
    // Until the deadline: a standby that cannot be reached now (restarting, a failed connection) is asked again.
    while (Date.now() < deadline) {
      const left = Math.max(1000, deadline - Date.now());
      const client = new Client({
        connectionString: url,
        application_name: 'conversation-read-api-admin',
        connectionTimeoutMillis: left,
        query_timeout: left,
      });
      try {
        await client.connect();
        for (;;) {
          const { rows } = await client.query<{ recovery: boolean; lsn: string | null }>(
            'SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS lsn',
          );
          const [{ recovery, lsn }] = rows;
          if (!recovery || !lsn) return;
          seen = `up to ${lsn}`;
          if (lsnOf(lsn) >= target) return;
          if (Date.now() >= deadline) break;
          await sleep(POLL_MS);
        }
      } catch (error) {
        seen = `nothing: ${(error as Error).message}`;
        await sleep(POLL_MS);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    throw new AdminError(
      'REPLICA_BEHIND',
      `committed on the primary, but the standby ${name} has not replayed it after ${waitSeconds} s (it replayed ${seen}; the change is at ${formatLsn(target)}): ${consequence}`,
    );
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
