import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { DatabaseUrls } from '../config/database-urls';
import { Metrics } from '../metrics/metrics';
import { DatabaseRoleError, readRolePosture, rolePostureRefusal } from './database-role-check';
import { survivePoolErrors } from './pool-errors';
import { lsnOf, serverName, WalTimeline } from './wal-positions';

/** A position in the change feed: epoch, transaction id, sequence number (changes.repository.ts). */
type FeedPosition = [epoch: string, xid: string, seq: string];

/** One hot standby the API reads from: its pools, and what the last check found. */
export class Replica {
  /** Connections for the requests' read-only tenant transactions (as many as the request pool). */
  readonly requests: Pool;
  /** Connections for the export streams' snapshots (as many as the export pool). */
  readonly exports: Pool;
  /** One connection for the lag check, apart so a busy request pool cannot hide a standby's state. */
  readonly probe: Pool;
  /** Seconds behind the primary at the last check; null when unknown (not checked yet, unreachable, not a standby). */
  lagSeconds: number | null = null;
  /** Read from until then (ms): a check found it reachable, in recovery and no further behind than REPLICA_MAX_LAG_SECONDS. */
  usableUntil = 0;
  /** Why it is not read from, for the log (said once per change). */
  reason = 'not checked yet';
  /** Set once its role was read: why it is never read from (a role that bypasses row-level security), or null. */
  refusal: string | null | undefined;

  /** Read from now: a check found it well lately (it expires, so a check that hangs or stops cannot keep it). */
  get usable(): boolean {
    return !this.refusal && Date.now() < this.usableUntil;
  }

  constructor(
    readonly name: string,
    /** Its connection URL (the API role's credentials: never logged; `name` is what is shown). */
    readonly url: string,
    sizes: { requests: number; exports: number },
    options: {
      connectTimeoutMs: number;
      statementTimeoutMs: number;
      idleInTransactionTimeoutMs: number;
      maxUses: number;
      lifetimeSeconds: number;
      /** How long a lag check waits for an answer. */
      checkTimeoutMs: number;
    },
    logger: Logger,
  ) {
    const pool = (max: number, application: string, queryTimeoutMs: number) => {
      const created = new Pool({
        connectionString: url,
        max,
        application_name: application,
        connectionTimeoutMillis: options.connectTimeoutMs,
        statement_timeout: options.statementTimeoutMs,
        idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs,
        // A standby gone without a word (its node lost) answers nothing, not even an error: the
        // client gives up on a statement after this (the pool then drops the connection).
        query_timeout: queryTimeoutMs,
        keepAlive: true,
        maxUses: options.maxUses,
        maxLifetimeSeconds: options.lifetimeSeconds,
      });
      survivePoolErrors(created, logger, `replica ${name}`);
      return created;
    };
    const statementBound = options.statementTimeoutMs + options.connectTimeoutMs;
    this.requests = pool(sizes.requests, 'conversation-read-api', statementBound);
    this.exports = pool(sizes.exports, 'conversation-read-api-export', statementBound);
    this.probe = pool(1, 'conversation-read-api-replica-check', options.checkTimeoutMs);
  }

  async end(): Promise<void> {
    await Promise.all([this.requests.end(), this.exports.end(), this.probe.end()]);
  }
}

/**
 * The hot standbys of DATABASE_REPLICA_URLS, for the `/v1` reads (TenantTransaction's read-only
 * transactions and the export's snapshots). Every REPLICA_CHECK_INTERVAL_MS it reads the
 * primary's WAL position and each standby's replay position (WalTimeline turns them into
 * seconds behind); a standby unreachable, not in recovery (promoted, or not a standby at all:
 * its data is not the primary's), or more than REPLICA_MAX_LAG_SECONDS behind is not read from
 * until a check finds it well again, and `pick` spreads the reads over the others, round robin,
 * or answers none: the read runs on the primary. Writes, token issuance, the audit trail, the
 * worker's reads and the CLI never come here; the worker measures the standbys all the same, for
 * the feed's bound (`settledHorizon`), which its webhooks follow. (Provided by DatabaseModule's factory.)
 */
export class ReadReplicas implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  readonly replicas: Replica[];
  private readonly primary: Pool | undefined;
  private readonly timeline: WalTimeline;
  private readonly maxLagSeconds: number;
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private next = 0;
  /** The statement of the feed's horizon (`live`, `horizon`), given by the feed's reads (`followFeedHorizon`). */
  private feedHorizon: string | undefined;
  /** The primary's feed horizon at each check, oldest first (see `settledHorizon`). */
  private readonly horizons: Array<{ at: number; position: FeedPosition }> = [];
  /** How long an entry waits, once final on the primary, before the feed serves it (see `settledHorizon`). */
  readonly settleMs: number;
  /** How long a standby found well is read from without a newer check saying so. */
  private readonly freshMs: number;
  private checking: Promise<void> | undefined;

  constructor(
    urls: DatabaseUrls,
    config: AppConfig,
    metrics: Metrics,
    /** False for the CLI (DatabaseModule.forOwner): no standby is measured there (a revoking command waits through ReplicaReplay). */
    enabled = true,
  ) {
    const db = config.database;
    const { maxLagSeconds, checkIntervalMs } = db.replicas;
    const replicaUrls = enabled ? db.replicas.urls : [];
    this.maxLagSeconds = maxLagSeconds;
    this.intervalMs = checkIntervalMs;
    // Readings kept: long enough to measure any lag that matters, several times the bound.
    this.timeline = new WalTimeline(Math.max(60_000, 4 * maxLagSeconds * 1000));
    // A standby is read from for `freshMs` after a check found it no more than REPLICA_MAX_LAG_SECONDS
    // behind (a reading of the primary's position is up to one interval old on top): what it shows
    // is at most maxLag + freshMs + one interval old. An entry settled that long ago is on it.
    this.freshMs = 2 * checkIntervalMs + 1000;
    this.settleMs = maxLagSeconds * 1000 + this.freshMs + checkIntervalMs;
    const checkTimeoutMs = Math.max(db.connectTimeoutMs, checkIntervalMs);
    const options = {
      checkTimeoutMs,
      connectTimeoutMs: db.connectTimeoutMs,
      statementTimeoutMs: db.statementTimeoutMs,
      idleInTransactionTimeoutMs: db.idleInTransactionTimeoutMs,
      maxUses: db.connectionMaxUses,
      lifetimeSeconds: db.connectionLifetimeSeconds,
    };
    this.replicas = replicaUrls.map(
      (url) => new Replica(serverName(url), url, { requests: db.poolSize, exports: config.exports.poolSize }, options, this.logger),
    );
    if (this.replicas.length) {
      this.primary = new Pool({
        connectionString: urls.api,
        max: 1,
        application_name: 'conversation-read-api-replica-check',
        connectionTimeoutMillis: db.connectTimeoutMs,
        statement_timeout: db.statementTimeoutMs,
        query_timeout: checkTimeoutMs,
        keepAlive: true,
      });
      survivePoolErrors(this.primary, this.logger, 'replica check');
    }
    this.replicas.forEach((replica, i) => {
      metrics.watchPool(`replica-${i + 1}`, replica.requests);
      metrics.watchPool(`replica-${i + 1}-export`, replica.exports);
    });
    if (this.replicas.length) {
      metrics.gauge(
        'db_replica_lag_seconds',
        'Seconds a hot standby of DATABASE_REPLICA_URLS is behind the primary, at the last check (absent while unknown).',
        this.replicas.map((replica) => ({ labels: { replica: replica.name }, read: () => replica.lagSeconds ?? undefined })),
      );
      metrics.gauge(
        'db_replica_serving',
        'Whether reads go to a hot standby now (1) or not (0: unreachable, not a standby, or behind by more than REPLICA_MAX_LAG_SECONDS).',
        this.replicas.map((replica) => ({ labels: { replica: replica.name }, read: () => (replica.usable ? 1 : 0) })),
      );
    }
  }

  async onModuleInit(): Promise<void> {
    if (!this.replicas.length) return;
    // The first check before the first request: until a standby is known to be caught up, reads stay on the primary.
    await this.check();
    // A standby whose role may bypass row-level security refuses the start, as DATABASE_URL's does (database-role-check.ts).
    const refused = this.replicas.find((r) => r.refusal);
    if (refused) throw new DatabaseRoleError(`${refused.refusal} (DATABASE_REPLICA_URLS: ${refused.name})`);
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  /** A standby to read from now, round robin over the usable ones; undefined: read on the primary. */
  pick(): Replica | undefined {
    const count = this.replicas.length;
    for (let tried = 0; tried < count; tried++) {
      const replica = this.replicas[this.next++ % count];
      if (replica.usable) return replica;
    }
    return undefined;
  }

  /** Checks every standby now (one check at a time: a second caller shares the running one). */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkAll(): Promise<void> {
    try {
      const horizon = this.feedHorizon ? `, h.live::text AS live, h.horizon::text AS horizon FROM (${this.feedHorizon}) h` : '';
      const { rows } = await this.primary!.query<{ lsn: string; live?: string; horizon?: string }>(
        `SELECT pg_current_wal_lsn()::text AS lsn${horizon}`,
      );
      const at = Date.now();
      this.timeline.record(lsnOf(rows[0].lsn), at);
      if (rows[0].live !== undefined) this.horizons.push({ at, position: [rows[0].live, rows[0].horizon!, '0'] });
      // The newest reading old enough to be settled is all that is needed of the older ones.
      while (this.horizons.length > 1 && this.horizons[1].at <= at - this.settleMs) this.horizons.shift();
    } catch (error) {
      // The primary's position unknown: the standbys' lag cannot be judged, so they keep their last state.
      this.logger.warn({ err: (error as Error).message }, 'replica check: the primary did not answer');
      return;
    }
    await Promise.all(this.replicas.map((replica) => this.checkOne(replica)));
  }

  private async checkOne(replica: Replica): Promise<void> {
    let lag: number | null = null;
    let reason: string;
    try {
      // Its role, once: read as the primary's is at start (the same checks), never read from if it may bypass row-level security.
      if (replica.refusal === undefined) {
        replica.refusal = rolePostureRefusal(await readRolePosture(asQueryable(replica.probe)));
        if (replica.refusal) this.logger.error({ replica: replica.name }, `reads never go to this standby: ${replica.refusal}`);
      }
      const { rows } = await replica.probe.query<{ recovery: boolean; lsn: string | null }>(
        'SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS lsn',
      );
      const [{ recovery, lsn }] = rows;
      if (!recovery || !lsn) {
        reason = "it is not a standby (promoted, or another server): its data may not be the primary's";
      } else {
        lag = this.timeline.lagSeconds(lsnOf(lsn), Date.now());
        reason =
          lag !== null && lag <= this.maxLagSeconds
            ? ''
            : `it is ${lag?.toFixed(1) ?? 'an unknown number of'} seconds behind (more than REPLICA_MAX_LAG_SECONDS=${this.maxLagSeconds})`;
      }
    } catch (error) {
      reason = `it did not answer (${(error as Error).message})`;
    }
    replica.lagSeconds = lag;
    const was = replica.usable;
    replica.usableUntil = reason === '' ? Date.now() + this.freshMs : 0;
    if (replica.refusal) reason = replica.refusal;
    if (replica.usable !== was || (reason && reason !== replica.reason)) {
      if (replica.usable) this.logger.log({ replica: replica.name, lag_seconds: lag }, 'reads go to this standby again');
      else if (was || reason !== replica.reason)
        this.logger.warn({ replica: replica.name, lag_seconds: lag, reason }, `reads leave this standby: ${reason}`);
    }
    replica.reason = reason;
  }

  /** Reads the primary's feed horizon (`sql`: one row of `live`, `horizon`) at every check, for `settledHorizon`. */
  followFeedHorizon(sql: string): void {
    this.feedHorizon = sql;
  }

  /**
   * With standbys, the highest position the feed may serve now (undefined: no standby, no bound).
   * A client reads an entry on one instance and the object it names on another, whose standby
   * may be behind the first: it would store an older version (or take a 404 for a delete) and
   * never be told again. So an entry is served only once it was final on the primary at least
   * `settleMs` ago (REPLICA_MAX_LAG_SECONDS, two checks and a second): every standby any instance
   * still reads from has replayed it by then, since one further behind is no longer read from.
   * The bound is the primary's horizon as a check read it that long ago; before the first such
   * reading nothing new is served (an empty page, the cursor kept).
   */
  settledHorizon(): FeedPosition | undefined {
    if (!this.replicas.length) return undefined;
    const cutoff = Date.now() - this.settleMs;
    let settled: FeedPosition = ['0', '0', '0'];
    for (const reading of this.horizons) if (reading.at <= cutoff) settled = reading.position;
    return settled;
  }

  /**
   * A connection of a usable standby's request pool, or undefined (the primary serves). A standby
   * that refuses the connection (full, going away) is not read from until a check finds it well
   * again, and this read goes to the primary.
   */
  async connectForRead(): Promise<{ client: PoolClient; replica: Replica } | undefined> {
    const replica = this.pick();
    if (!replica) return undefined;
    try {
      return { client: await replica.requests.connect(), replica };
    } catch (error) {
      this.leave(replica, error);
      return undefined;
    }
  }

  /** Takes `replica` out of the reads at once (it refused a connection), until a check finds it well. */
  leave(replica: Replica, error: unknown): void {
    if (replica.usable)
      this.logger.warn({ replica: replica.name, err: (error as Error).message }, 'reads leave this standby: it refused a connection');
    replica.usableUntil = 0;
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.checking?.catch(() => undefined);
    await Promise.all([...this.replicas.map((r) => r.end()), this.primary?.end()]);
  }
}

/** A pool as readRolePosture reads through it (a data source's `query`: the rows). */
function asQueryable(pool: Pool): Pick<DataSource, 'query'> {
  return { query: async <T>(text: string, values?: unknown[]) => (await pool.query(text, values)).rows as T };
}
