import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AuditMaintenance } from '../audit/audit-maintenance';
import { ChangeCompaction, HORIZON_MARK_SECONDS } from '../changes/change-compaction';
import { AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics';
import { ReadModels } from '../read-model/read-models';
import { WebhookDeliveries } from '../webhooks/webhook-deliveries.repository';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher';
import { retryWithBackoff } from '../webhooks/retry-with-backoff';
import { Job, WebhookQueue } from '../webhooks/webhook-queue';
import { SigningKeys } from '../webhooks/webhook-secrets';
import { WebhookSender } from '../webhooks/webhook-sender';
import { BackgroundLoop, LoopWork } from './background-loop';

/** How often a sender with free job slots asks the queue when nothing woke it (jobs another worker queued). */
const FETCH_INTERVAL_MS = 250;
/** How long an idle read-model refresher waits before it looks again. */
export const DOCUMENT_POLL_MS = 500;
const HOUR_MS = 3_600_000;
/** The queue's start is tried until the database answers: 1 s after the first failure, doubling to 30 s. */
const QUEUE_START_RETRIES = { firstWaitMs: 1000, maxWaitMs: 30_000 };
/** The loops the runner names (to wake them): each one must be among those it defines, checked at start-up. */
const WOKEN = ['webhook-dispatch', 'webhook-send'] as const;
type WokenLoop = (typeof WOKEN)[number];

/**
 * The loops named `names`, checked once, as immich checks at start-up that every job name has its
 * handler: a name that no loop has, or a loop name defined twice, fails start-up with what is
 * defined, where a wake would otherwise fail at run time, long after.
 */
export function loopsByName<N extends string>(loops: readonly BackgroundLoop[], names: readonly N[]): Record<N, BackgroundLoop> {
  const defined = loops.map((loop) => loop.name);
  const twice = defined.filter((name, i) => defined.indexOf(name) !== i);
  if (twice.length) throw new Error(`the worker defines the loop ${twice.map((n) => `"${n}"`).join(', ')} twice`);
  const missing = names.filter((name) => !defined.includes(name));
  if (missing.length)
    throw new Error(
      `the worker names the loop ${missing.map((n) => `"${n}"`).join(', ')}, which it does not define (it defines ${defined.join(', ')})`,
    );
  return Object.fromEntries(names.map((name) => [name, loops.find((loop) => loop.name === name)!])) as Record<N, BackgroundLoop>;
}

/**
 * The worker: every background loop of the service, listed once (`define`), run through one
 * mechanism (BackgroundLoop). It runs in the API process (WORKER=1) or alone (`npm run worker`);
 * any number of workers share one database. Start-up checks once what the loops need (every loop
 * the runner wakes defined: loopsByName; the webhook signing key) and refuses to start without it;
 * the queue then starts in the background and keeps trying while the database is away (the API
 * process serves meanwhile). `ready` settles once the loops run. Shutdown: no new attempt starts,
 * each loop finishes its run, running jobs put back what they have not sent, the queue stops; the
 * connections close after (application shutdown).
 */
@Injectable()
export class BackgroundRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Worker');
  private readonly running = new Set<Promise<void>>();
  private stopped = false;
  readonly loops: BackgroundLoop[];
  private readonly woken: Record<WokenLoop, BackgroundLoop>;
  /** Resolves once the queue is started and the loops run. */
  ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: AppConfig,
    private readonly keys: SigningKeys,
    private readonly queue: WebhookQueue,
    private readonly dispatcher: WebhookDispatcher,
    private readonly sender: WebhookSender,
    private readonly deliveries: WebhookDeliveries,
    private readonly refresher: ReadModels,
    private readonly compaction: ChangeCompaction,
    private readonly audit: AuditMaintenance,
    metrics: Metrics,
  ) {
    this.loops = this.define();
    this.woken = loopsByName(this.loops, WOKEN);
    metrics.gauge('worker_loop_up', 'The worker loops this process runs (1 each), by name.', [
      ...this.loops.map((loop) => ({ labels: { loop: loop.name }, read: () => (this.stopped ? 0 : 1) })),
    ]);
    metrics.counter('worker_loop_runs_total', 'Runs of each worker loop since start, by outcome.', [
      ...this.loops.flatMap((loop) => [
        { labels: { loop: loop.name, outcome: 'ok' }, read: () => loop.stats.runs },
        { labels: { loop: loop.name, outcome: 'failed' }, read: () => loop.stats.failures },
      ]),
    ]);
  }

  /** Every loop of the worker, with how often it runs when idle. */
  private define(): BackgroundLoop[] {
    const { webhooks, changes } = this.config;
    const loop = (name: string, everyMs: number, work: LoopWork) => new BackgroundLoop(name, everyMs, work, this.logger);
    return [
      // Builds each endpoint's next batch from its due deliveries and its feed; wakes the sender.
      loop('webhook-dispatch', webhooks.pollMs, async () => {
        if (await this.dispatcher.dispatch()) this.woken['webhook-send'].wake();
      }),
      // Runs queued batches in up to WEBHOOK_JOB_SLOTS jobs at once.
      loop('webhook-send', FETCH_INTERVAL_MS, () => this.fetchJobs()),
      // Settled delivery records older than WEBHOOK_RETENTION_DAYS, and idempotency keys past their 24 h.
      loop('webhook-retention', HOUR_MS, async () => {
        const purged = await this.deliveries.purge(webhooks.retentionDays);
        if (purged) this.logger.log(`deleted ${purged} webhook delivery records older than ${webhooks.retentionDays} days`);
        await this.deliveries.purgeIdempotencyKeys();
      }),
      // The read models (recording_documents, conversation_documents) until nothing waits.
      loop('documents-refresh', DOCUMENT_POLL_MS, async () => {
        const run = await this.refresher.refreshAll(() => this.stopped);
        if (run.rendered) this.logger.debug(`rendered ${run.rendered} documents in ${run.batches} batches`);
      }),
      // The feed's horizon marks, which turn an instant into a position (replays from a date-time).
      loop('change-horizon', HORIZON_MARK_SECONDS * 1000, () => this.compaction.markHorizon()),
      // The change log's old entries merged into their object's newest (one instance at a time).
      ...(changes.compactIntervalSeconds
        ? [
            loop('change-compaction', changes.compactIntervalSeconds * 1000, async () => {
              const run = await this.compaction.compact();
              if (run.merged) this.logger.log(`compacted the change log: ${run.merged} objects in ${run.batches} batches`);
            }),
          ]
        : []),
      // The audit trail's coming months, so a service that runs for months never lacks a partition.
      loop('audit-partitions', 24 * HOUR_MS, async () => {
        const created = await this.audit.ensureAhead();
        if (created.length) this.logger.log(`created audit partitions ${created.join(', ')}`);
      }),
    ];
  }

  onApplicationBootstrap(): void {
    void this.keys.box; // WEBHOOK_SECRET_KEY, checked once: without it the worker does not start
    this.ready = this.start();
    this.ready.catch(() => undefined); // reported by start(); an awaiting caller sees it too
  }

  private async start(): Promise<void> {
    await retryWithBackoff(() => this.queue.start(true), {
      ...QUEUE_START_RETRIES,
      stopped: () => this.stopped,
      onRetry: (error, wait) => this.logger.warn(`the webhook queue could not start (${error.message}); trying again in ${wait} ms`),
    });
    if (this.stopped) return;
    for (const loop of this.loops) loop.start();
    this.logger.log(`worker running: ${this.loops.map((l) => `${l.name} (every ${l.everyMs} ms)`).join(', ')}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.sender.stop(); // running jobs put back what they have not sent: shutdown waits one attempt at most
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await Promise.all(this.running);
    await this.queue.stop();
  }

  /** Fills the free job slots from the queue; each job runs on its own, and when it ends the dispatcher and the sender look again. */
  private async fetchJobs(): Promise<void> {
    const free = this.config.webhooks.jobSlots - this.running.size;
    if (free <= 0 || this.stopped) return;
    for (const job of await this.queue.fetch(free)) this.run(job);
  }

  private run(job: Job): void {
    const run = this.sender
      .run(job)
      .then((attempted) => this.logger.debug(`sent a batch of ${attempted} to endpoint ${job.data.endpoint_id}`))
      .catch(async (error: Error) => {
        this.logger.warn(`webhook job ${job.id} failed, pg-boss retries it: ${error.message}`);
        await this.queue.fail(job, error).catch(() => undefined);
      })
      .finally(() => {
        this.running.delete(run);
        this.woken['webhook-dispatch'].wake(); // the endpoint may have more
        this.woken['webhook-send'].wake();
      });
    this.running.add(run);
  }
}
