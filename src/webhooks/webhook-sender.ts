import { randomInt } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { RuntimeSecrets } from '../config/runtime-secrets';
import { Job, WebhookQueue } from './webhook-queue';
import { SecretBox, signatureHeader } from './webhook-secrets';
import { EndpointRow, Outcome, Sendable, WebhookStore } from './webhook-store';
import { AttemptResult, DEFAULT_TRANSPORT, WebhookTransport } from './webhook-transport';

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

/** Tries of a batch's bookkeeping transaction before the whole job is handed back (and its deliveries sent again). */
const BOOKKEEPING_TRIES = 4;

/**
 * Attempts one job's deliveries: signs each (Standard Webhooks: `webhook-id` is the change id,
 * stable across attempts and replays), sends at most WEBHOOK_CONCURRENCY at once through the
 * transport (address checks, no redirects, timeouts), then in one transaction completes the job
 * and records every outcome: delivered; due again at the schedule's next time; or given up
 * (`failed`, the endpoint marked `failing` until its next success). Deliveries it did not get to
 * (the job's deadline, a shutdown) are due again at once. The endpoint is then free for its next
 * batch. A crash before that transaction leaves the job to expire and run again elsewhere: at
 * least once. A transaction that fails is tried again a few times first, since the outcomes are
 * in memory and a failed job would send its delivered events again.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly transport: WebhookTransport;
  private readonly box?: SecretBox;
  private stopping = false;

  constructor(
    private readonly store: WebhookStore,
    private readonly queue: WebhookQueue,
    private readonly config: AppConfig,
    secrets: RuntimeSecrets,
  ) {
    this.transport = new WebhookTransport({
      ...DEFAULT_TRANSPORT,
      allowPrivate: config.webhooks.allowPrivate,
      totalTimeoutMs: config.webhooks.timeoutMs,
      connectTimeoutMs: Math.min(DEFAULT_TRANSPORT.connectTimeoutMs, config.webhooks.timeoutMs),
    });
    if (secrets.webhookSecretKey) this.box = new SecretBox(secrets.webhookSecretKey);
  }

  /** No attempt starts from now on: what a running job has not sent is put back (shutdown then waits one attempt at most). */
  stop(): void {
    this.stopping = true;
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }

  /** Sends the job's deliveries and records what came of them; returns how many were attempted. */
  async run(job: Job): Promise<number> {
    const { expireSeconds, timeoutMs, concurrency, retrySchedule } = this.config.webhooks;
    // Attempts start only while one can still finish before the job expires and another worker takes it.
    const deadline = Date.now() + expireSeconds * 1000 - timeoutMs - 1000;
    const endpoint = await this.store.endpointById(job.data.endpoint_id);
    const pending = endpoint ? await this.store.sendable(endpoint.id, job.data.deliveries) : [];
    const outcomes: Outcome[] = [];
    const putBack: string[] = [];
    // One jittered time per attempt number in this run: the job's failures come due together.
    const retryTimes = new Map<number, Date>();
    const retryAt = (made: number) => {
      if (!retryTimes.has(made)) retryTimes.set(made, new Date(Date.now() + withJitter(retrySchedule[made - 1])));
      return retryTimes.get(made)!;
    };
    if (endpoint && pending.length) {
      const secrets = this.signingSecrets(endpoint);
      await eachLimited(pending, concurrency, async (delivery) => {
        if (this.stopping || Date.now() > deadline) putBack.push(delivery.id);
        else {
          const result = secrets instanceof Error ? unsigned(secrets) : await this.attempt(endpoint.url, secrets, delivery);
          outcomes.push(outcomeOf(delivery, result, retrySchedule, retryAt));
        }
      });
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.transaction(async (sql) => {
          if (!(await this.queue.complete(sql, job))) return; // expired and taken over: the other run records it
          if (!endpoint) return;
          await this.store.recordOutcomes(sql, outcomes);
          await this.store.putBack(sql, putBack);
          if (outcomes.some((o) => o.next === 'failed')) await this.store.markEndpoint(sql, endpoint.id, 'failing');
          else if (outcomes.some((o) => o.next === 'delivered')) await this.store.markEndpoint(sql, endpoint.id, 'active');
          await this.store.releaseBatch(sql, endpoint.id);
        });
        return outcomes.length;
      } catch (error) {
        if (attempt >= BOOKKEEPING_TRIES) throw error;
        this.logger.warn(`recording webhook job ${job.id} failed (${(error as Error).message}), trying again`);
        await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
      }
    }
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
      if (!this.box) throw new Error('WEBHOOK_SECRET_KEY is not set');
      const secrets = [this.box.open(endpoint.secret, endpoint.public_id)];
      if (endpoint.previous_secret && endpoint.previous_active) secrets.push(this.box.open(endpoint.previous_secret, endpoint.public_id));
      return secrets;
    } catch (error) {
      return error as Error;
    }
  }
}

/** An attempt that could not be signed, so was not sent. */
const unsigned = (error: Error): AttemptResult => ({ delivered: false, status: null, error: `not sent: ${error.message}`, latencyMs: 0 });
