import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, ConfigError } from '../config/app-config';
import { RuntimeSecrets } from '../config/runtime-secrets';
import { WebhookDispatcher } from './webhook-dispatcher';
import { Job, WebhookQueue } from './webhook-queue';
import { WebhookSender } from './webhook-sender';
import { WebhookStore } from './webhook-store';

/** Jobs one worker runs at once (each sends up to WEBHOOK_CONCURRENCY requests to its endpoint). */
export const JOB_SLOTS = 32;
/** How often a worker with free slots asks the queue for jobs when nothing woke it (jobs another worker queued). */
const FETCH_INTERVAL_MS = 250;
const PURGE_INTERVAL_MS = 3_600_000;

/** A sleep that `wake()` ends early. */
class Alarm {
  private ring?: () => void;
  private woken = false;

  sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.ring = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.ring = done;
    });
  }

  wake(): void {
    if (this.ring) this.ring();
    else this.woken = true;
  }
}

/**
 * The webhook worker: the dispatcher's loop (batches from due deliveries and new changes, every
 * WEBHOOK_POLL_MS when idle, at once after a batch finishes) and the sender's (up to JOB_SLOTS
 * jobs at once, at once when the dispatcher queued something), and the purge of old delivery
 * records. It runs in the API process (WEBHOOK_WORKER=1) or alone (`npm run worker`); any number
 * of them share one database. It starts in the background and keeps trying (the API process
 * serves meanwhile); `ready` settles once it runs.
 */
@Injectable()
export class WebhookWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly dispatchAlarm = new Alarm();
  private readonly fetchAlarm = new Alarm();
  private readonly running = new Set<Promise<void>>();
  private loops: Promise<void>[] = [];
  private purgeTimer?: NodeJS.Timeout;
  private stopped = false;
  /** Resolves once the queue is started and the loops run. */
  ready: Promise<void> = Promise.resolve();
  /** Counters since start. */
  readonly stats = { dispatched: 0, jobs: 0, attempts: 0, jobErrors: 0 };

  constructor(
    private readonly config: AppConfig,
    private readonly secrets: RuntimeSecrets,
    private readonly queue: WebhookQueue,
    private readonly dispatcher: WebhookDispatcher,
    private readonly sender: WebhookSender,
    private readonly store: WebhookStore,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.secrets.webhookSecretKey) {
      throw new ConfigError('Invalid configuration: WEBHOOK_SECRET_KEY is required to run the webhook worker (NODE_ENV=production)');
    }
    this.ready = this.start();
    this.ready.catch(() => undefined); // reported by start(); an awaiting caller sees it too
  }

  private async start(): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await this.queue.start(true);
        break;
      } catch (error) {
        const wait = Math.min(30_000, 500 * 2 ** attempt);
        this.logger.warn(`the webhook queue could not start (${(error as Error).message}); trying again in ${wait} ms`);
        await new Promise((r) => setTimeout(r, wait));
      }
    }
    if (this.stopped) return;
    this.loops = [this.dispatchLoop(), this.sendLoop()];
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_INTERVAL_MS).unref();
    void this.purge();
  }

  /** Before the connections close (the store's and the API role's pools close at application shutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.sender.stop(); // running jobs put back what they have not sent: shutdown waits one attempt at most
    clearInterval(this.purgeTimer);
    this.dispatchAlarm.wake();
    this.fetchAlarm.wake();
    await Promise.all(this.loops);
    await Promise.all(this.running);
    await this.queue.stop();
  }

  private async dispatchLoop(): Promise<void> {
    while (!this.stopped) {
      try {
        const queued = await this.dispatcher.dispatch();
        if (queued) {
          this.stats.dispatched += queued;
          this.fetchAlarm.wake();
        }
      } catch (error) {
        this.logger.warn(`webhook dispatch failed, will retry: ${(error as Error).message}`);
      }
      await this.dispatchAlarm.sleep(this.config.webhooks.pollMs);
    }
  }

  private async sendLoop(): Promise<void> {
    while (!this.stopped) {
      try {
        const free = JOB_SLOTS - this.running.size;
        if (free > 0) for (const job of await this.queue.fetch(free)) this.run(job);
      } catch (error) {
        this.logger.warn(`webhook queue fetch failed, will retry: ${(error as Error).message}`);
      }
      await this.fetchAlarm.sleep(FETCH_INTERVAL_MS);
    }
  }

  private run(job: Job): void {
    const run = this.sender
      .run(job)
      .then((attempted) => {
        this.stats.jobs++;
        this.stats.attempts += attempted;
        this.logger.debug(`sent a batch of ${attempted} to endpoint ${job.data.endpoint_id}`);
      })
      .catch(async (error: Error) => {
        this.stats.jobErrors++;
        this.logger.warn(`webhook job ${job.id} failed, pg-boss retries it: ${error.message}`);
        await this.queue.fail(job, error).catch(() => undefined);
      })
      .finally(() => {
        this.running.delete(run);
        this.dispatchAlarm.wake(); // the endpoint may have more
        this.fetchAlarm.wake();
      });
    this.running.add(run);
  }

  private async purge(): Promise<void> {
    try {
      const purged = await this.store.purgeDeliveries(this.config.webhooks.retentionDays);
      if (purged) this.logger.log(`deleted ${purged} webhook delivery records older than ${this.config.webhooks.retentionDays} days`);
    } catch (error) {
      this.logger.warn(`webhook delivery purge failed, will retry: ${(error as Error).message}`);
    }
  }
}
