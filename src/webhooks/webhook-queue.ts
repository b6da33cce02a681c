import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import PgBoss from 'pg-boss';
import { AppConfig } from '../config/app-config';
import { OwnerPool, Sql } from '../database/owner-pool';
import { DeliveryJob, QUEUE } from './webhook.vocabulary';
import { WebhookDeliveries } from './webhook-deliveries.repository';
import { JobRun, QUEUE_SCHEMA, runOf } from './pg-boss-internals';

/** A job as one run of it sees it. */
export interface Job extends JobRun {
  data: DeliveryJob;
}

/** How long a job waiting to run is kept (pg-boss drops older ones; a lost batch is dispatched again anyway). */
const KEEP_DAYS = 365;

/**
 * The delivery queue: pg-boss on the schema owner's pool (schema `pgboss`, created on first
 * start). A job is one endpoint's batch; what it holds and when it stops holding it is the lease
 * rule of WebhookDeliveries (the job's own state here, never a time of ours). Why pg-boss: a job taken by a worker that dies is taken over by another
 * after its expiry (graphile-worker leaves it locked for four hours), jobs are inserted and
 * completed inside our own transactions (`db` option), and fetching uses `SKIP LOCKED`, so any
 * number of workers share the queue without sending a job twice while they live.
 *
 * A job runs to completion or fails into pg-boss's retry (an error of ours: the database away).
 * The retries of a delivery that the receiver refused are not pg-boss's (its backoff is a
 * formula, not a schedule): the delivery row is due again at its next time, and the endpoint's
 * next batch takes it. Every job carries its own expiry and retention, so what the queue's first
 * creator configured does not matter.
 */
@Injectable()
export class WebhookQueue implements OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private boss?: PgBoss;
  private starting?: Promise<PgBoss>;

  constructor(
    private readonly db: OwnerPool,
    private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveries,
  ) {}

  /** Installs or upgrades the queue's schema and creates the queues; `supervise` runs expiry and cleanup (the worker does, the CLI does not). */
  start(supervise: boolean): Promise<PgBoss> {
    this.starting ??= this.open(supervise).catch((error: Error) => {
      this.starting = undefined; // the next call tries again
      throw error;
    });
    return this.starting;
  }

  private async open(supervise: boolean): Promise<PgBoss> {
    const { expireSeconds } = this.config.webhooks;
    const boss = new PgBoss({
      db: { executeSql: (text, values) => this.db.pool.query(text, values) },
      schema: QUEUE_SCHEMA,
      migrate: true,
      supervise,
      schedule: false,
      // Expiry is how a crashed worker's job comes back: checked this often.
      maintenanceIntervalSeconds: Math.max(1, Math.min(60, Math.floor(expireSeconds / 4))),
      // Finished jobs are kept a day for inspection; our delivery records are the history.
      archiveCompletedAfterSeconds: 3600,
      deleteAfterDays: 1,
    });
    boss.on('error', (error: Error) => this.logger.warn(`job queue: ${error.message}`));
    await boss.start();
    if (!(await boss.getQueue(QUEUE))) {
      await boss.createQueue(QUEUE, { name: QUEUE }).catch(async (error: Error) => {
        if (!(await boss.getQueue(QUEUE))) throw error; // another process created it first: fine
      });
    }
    this.boss = boss;
    return boss;
  }

  onApplicationShutdown(): Promise<void> {
    return this.stop();
  }

  async stop(): Promise<void> {
    const boss = this.boss;
    this.boss = undefined;
    this.starting = undefined;
    await boss?.stop({ graceful: false, close: false, wait: true, timeout: 1000 });
  }

  /** Queues a job inside the caller's transaction (it exists exactly when the caller's other writes do); its id. */
  async insert(sql: Sql, data: DeliveryJob): Promise<string> {
    const { expireSeconds } = this.config.webhooks;
    const id = randomUUID();
    await this.running().insert(
      [
        {
          id,
          name: QUEUE,
          data,
          expireInSeconds: expireSeconds,
          retryLimit: 1_000_000,
          retryDelay: 1,
          keepUntil: new Date(Date.now() + KEEP_DAYS * 86_400_000).toISOString(),
        },
      ],
      { db: executor(sql) },
    );
    return id;
  }

  /** Up to `n` jobs that are due, now this worker's (SKIP LOCKED: no other worker gets them while this one lives). */
  async fetch(n: number): Promise<Job[]> {
    const jobs = await this.running().fetch<DeliveryJob>(QUEUE, { batchSize: n, includeMetadata: true });
    return jobs.map((job) => ({ ...runOf(job), data: job.data }));
  }

  /** Completes the job in the caller's transaction (the caller has checked that this run is the job's current one: WebhookDeliveries.ownRun). */
  async complete(sql: Sql, job: Job): Promise<void> {
    await this.running().complete(QUEUE, job.id, {}, { db: executor(sql) });
  }

  /**
   * Hands the job back to pg-boss's own retry (an error on our side, not the receiver's), if this
   * run is still the job's current one. pg-boss fails a job by its id alone, and a run that expired
   * was handed on under the same id: the check (WebhookDeliveries.ownRun, the job row then locked)
   * and the fail go in one transaction, as with complete, so a late run never fails a newer one.
   */
  async fail(job: Job, error: Error): Promise<void> {
    await this.db.transaction(async (sql) => {
      if (!(await this.deliveries.ownRun(sql, job))) return; // expired and handed on: the newer run settles it
      await this.running().fail(QUEUE, job.id, { message: error.message }, { db: executor(sql) });
    });
  }

  private running(): PgBoss {
    if (!this.boss) throw new Error('the webhook queue is not started');
    return this.boss;
  }
}

const executor = (sql: Sql): PgBoss.Db => ({ executeSql: (text, values) => sql.query(text, values) });
