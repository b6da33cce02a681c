import { randomInt } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { retryWithBackoff } from './retry-with-backoff';
import { Job, WebhookQueue } from './webhook-queue';
import { signatureHeader, SigningKeys } from './webhook-secrets';
import { WebhookDeliveries } from './webhook-deliveries.repository';
import { Outcome, Sendable } from './webhook-delivery';
import { EndpointRow, WebhookEndpoints } from './webhook-endpoints.repository';
import { AttemptResult, DEFAULT_TRANSPORT, WebhookTransport } from './webhook-transport';
import { TEST_EVENT_TYPE } from './webhook.vocabulary';

/** Up to ±20% of a retry's delay, so the retries of many failed deliveries do not arrive at once. */
export function withJitter(seconds: number, random: (max: number) => number = randomInt): number {
  const spread = Math.floor(seconds * 200); // in thousandths of the delay: ±20%
  return seconds * 1000 + (spread ? random(2 * spread + 1) - spread : 0);
}

/** Delivered; or tried again after the schedule's next delay; or, past the schedule's end, given up. */
export function outcomeOf(
  delivery: Sendable,
  result: AttemptResult,
  schedule: readonly number[],
  retryAt: (made: number) => Date,
): Outcome {
  const base = { id: delivery.id, status: result.status, error: result.error, latencyMs: result.latencyMs };
  if (result.delivered) return { ...base, next: 'delivered', nextAttemptAt: null };
  const made = delivery.attempts + 1;
  if (made > schedule.length) return { ...base, next: 'failed', nextAttemptAt: null };
  return { ...base, next: 'pending', nextAttemptAt: retryAt(made) };
}

/** Runs `work` on every item, at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** How stale a run's view of its endpoint (deleted? sent elsewhere? paused?) may be before an attempt. */
const DESTINATION_RECHECK_MS = 1000;

/** Tries of a run's bookkeeping transaction before the job is handed back (and its deliveries sent again), 0.5, 1 and 2 s apart. */
const BOOKKEEPING_RETRIES = { tries: 4, firstWaitMs: 500 };

/**
 * One run of one job: signs each delivery the job holds (Standard Webhooks: `webhook-id` is the
 * change id, stable across attempts and replays), sends at most WEBHOOK_CONCURRENCY at once
 * through the transport (destination policy, no redirects, timeouts), then settles the run in one
 * transaction, if it is still the job's current run: completes the job, records every outcome
 * (delivered; due again at the schedule's next time; or given up, the endpoint `failing` until
 * its next success), puts back what it did not get to (its deadline, a shutdown) and closes the
 * endpoint's batch. A run that crashes before that leaves the job running in pg-boss until it
 * expires and another worker runs it again, still holding its deliveries: at least once. A run
 * starts attempts only while it can finish before its job expires, so two runs of one job never
 * send at once. A bookkeeping transaction that fails is tried again a few times first, since the
 * outcomes are in memory and a failed run sends its delivered events again.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly transport: WebhookTransport;
  private stopping = false;

  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly deliveries: WebhookDeliveries,
    private readonly queue: WebhookQueue,
    private readonly config: AppConfig,
    private readonly keys: SigningKeys,
  ) {
    this.transport = new WebhookTransport({
      ...DEFAULT_TRANSPORT,
      allowPrivate: config.webhooks.allowPrivate,
      totalTimeoutMs: config.webhooks.timeoutMs,
      connectTimeoutMs: Math.min(DEFAULT_TRANSPORT.connectTimeoutMs, config.webhooks.timeoutMs),
    });
  }

  /** No attempt starts from now on: what a running job has not sent is put back (shutdown then waits one attempt at most). */
  stop(): void {
    this.stopping = true;
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }

  /** Sends what the job holds and settles the run; returns how many deliveries were attempted. */
  async run(job: Job): Promise<number> {
    const { expireSeconds, timeoutMs, concurrency, retrySchedule } = this.config.webhooks;
    // Attempts start only while one can still finish before the job expires and another worker runs it.
    const deadline = Date.now() + expireSeconds * 1000 - timeoutMs - 1000;
    const endpoint = await this.endpoints.byId(job.data.endpoint_id);
    const held = endpoint ? await this.deliveries.heldBy(job.id) : [];
    const outcomes: Outcome[] = [];
    // One jittered time per attempt number in this run: the job's failures come due together.
    const retryTimes = new Map<number, Date>();
    const retryAt = (made: number) => {
      if (!retryTimes.has(made)) retryTimes.set(made, new Date(Date.now() + withJitter(retrySchedule[made - 1])));
      return retryTimes.get(made)!;
    };
    if (endpoint && held.length) {
      const secrets = this.signingSecrets(endpoint);
      const current = this.currentDestination(endpoint);
      await eachLimited(held, concurrency, async (delivery) => {
        if (this.stopping || Date.now() > deadline) return; // put back below
        // Deleted, sent elsewhere or paused since the batch was queued: not attempted, put back (a
        // paused endpoint's test events excepted). Looked at again at most once a second.
        // A failed look puts the delivery back rather than ending the run with its outcomes unrecorded.
        const now = await current().catch(() => null);
        if (!now || now.url !== endpoint.url || (!now.enabled && delivery.event_type !== TEST_EVENT_TYPE)) return;
        const result = secrets instanceof Error ? unsigned(secrets) : await this.attempt(endpoint.url, secrets, delivery);
        outcomes.push(outcomeOf(delivery, result, retrySchedule, retryAt));
      });
    }
    const settle = () =>
      this.deliveries.db.transaction(async (sql) => {
        if (!(await this.deliveries.ownRun(sql, job))) return; // expired and handed on: that run records
        if (endpoint) await this.deliveries.lockEndpoint(sql, endpoint.id);
        await this.queue.complete(sql, job);
        await this.deliveries.record(sql, job.id, outcomes);
        await this.deliveries.putBack(sql, job.id);
        if (!endpoint) return;
        if (outcomes.some((o) => o.next === 'failed')) await this.deliveries.markEndpoint(sql, endpoint.id, 'failing');
        else if (outcomes.some((o) => o.next === 'delivered')) await this.deliveries.markEndpoint(sql, endpoint.id, 'active');
        await this.deliveries.closeBatch(sql, endpoint.id, job.id);
      });
    await retryWithBackoff(settle, {
      ...BOOKKEEPING_RETRIES,
      onRetry: (error) => this.logger.warn(`recording webhook job ${job.id} failed (${error.message}), trying again`),
    });
    return outcomes.length;
  }

  /**
   * The endpoint's destination as it is now (null once deleted), read at most once a second for a
   * run: a delete, a new URL or a pause stops the rest of a batch queued before it (what was already
   * in flight finishes).
   */
  private currentDestination(endpoint: EndpointRow): () => Promise<{ url: string; enabled: boolean } | null> {
    let read: { at: number; value: Promise<{ url: string; enabled: boolean } | null> } | undefined;
    return () => {
      if (!read || Date.now() - read.at >= DESTINATION_RECHECK_MS)
        read = { at: Date.now(), value: this.endpoints.destination(endpoint.id) };
      return read.value;
    };
  }

  private attempt(url: string, secrets: string[], delivery: Sendable): Promise<AttemptResult> {
    const timestamp = Math.floor(Date.now() / 1000);
    return this.transport.send({
      url,
      headers: {
        'webhook-id': delivery.change_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, delivery.change_id, timestamp, delivery.payload),
      },
      body: delivery.payload,
    });
  }

  /**
   * The current secret, and the previous one while its overlap lasts; an error when they do not
   * open (another WEBHOOK_SECRET_KEY): each delivery then fails without being sent, on the
   * schedule like any failure, so the endpoint ends up `failing` instead of silently stalled.
   */
  private signingSecrets(endpoint: EndpointRow): string[] | Error {
    try {
      const box = this.keys.box;
      const secrets = [box.open(endpoint.secret, endpoint.public_id)];
      if (endpoint.previous_secret && endpoint.previous_active) secrets.push(box.open(endpoint.previous_secret, endpoint.public_id));
      return secrets;
    } catch (error) {
      return error as Error;
    }
  }
}

/** An attempt that could not be signed, so was not sent. */
const unsigned = (error: Error): AttemptResult => ({ delivered: false, status: null, error: `not sent: ${error.message}`, latencyMs: 0 });
