import { IsIn, IsOptional, Matches } from 'class-validator';
import { DURATION, IntegerIn, VariablesBase } from './environment-rules';

/** The background worker and the webhook deliveries it sends. */
export function withWebhookVariables<Base extends VariablesBase>(base: Base) {
  class WebhookVariables extends base {
    /** Run the worker (every background loop) in this process (default 1, or 0 with NODE_ENV=production, where `npm run worker` runs it). */
    @IsOptional()
    @IsIn(['0', '1'], { message: 'must be 0 or 1' })
    WORKER?: string;

    /** WORKER's earlier name, still read. */
    @IsOptional()
    @IsIn(['0', '1'], { message: 'must be 0 or 1' })
    WEBHOOK_WORKER?: string;

    /** Encrypts webhook signing secrets at rest (any text of 32 characters or more; generated in DATA_DIR outside production). */
    @IsOptional()
    @Matches(/^\S{32,}$/, { message: 'must be at least 32 characters without spaces' })
    WEBHOOK_SECRET_KEY?: string;

    /** Seconds before each retry of a failed delivery, comma-separated (each ±20% jitter). */
    @IsOptional()
    @Matches(/^[1-9]\d{0,6}(,[1-9]\d{0,6}){0,49}$/, { message: 'must be 1 to 50 comma-separated whole numbers of seconds, e.g. 1,2,4,8' })
    WEBHOOK_RETRY_SCHEDULE?: string;

    /** Plain http and private, loopback or link-local destinations (development only). */
    @IsOptional()
    @IsIn(['0', '1'], { message: 'must be 0 or 1' })
    WEBHOOK_ALLOW_PRIVATE?: string;

    /** How long a rotated-out signing secret keeps signing. */
    @IsOptional()
    @Matches(DURATION, { message: 'must be a duration such as 24h, 30m or 3600 (seconds), at least 1 second' })
    WEBHOOK_SECRET_OVERLAP?: string;

    /** How long one attempt may take (the contract: a 2xx within 10 s); shorter in tests. */
    @IsOptional()
    @IntegerIn(200, 10000, ' milliseconds')
    WEBHOOK_TIMEOUT_MS?: number;

    /** How long a worker may hold a job before another worker takes it over (a crashed worker's jobs). */
    @IsOptional()
    @IntegerIn(2, 3600, ' seconds')
    WEBHOOK_EXPIRE_SECONDS?: number;

    /** How often the dispatcher looks for new changes when idle. */
    @IsOptional()
    @IntegerIn(10, 60000, ' milliseconds')
    WEBHOOK_POLL_MS?: number;

    /** Events per batch of one endpoint, and how many of them are sent at once. */
    @IsOptional()
    @IntegerIn(1, 100)
    WEBHOOK_BATCH_SIZE?: number;

    @IsOptional()
    @IntegerIn(1, 256)
    WEBHOOK_CONCURRENCY?: number;

    /** Batches (each one endpoint's) one worker sends at once. */
    @IsOptional()
    @IntegerIn(1, 1024)
    WEBHOOK_JOB_SLOTS?: number;

    /** The most events one `POST /v1/webhook-endpoints/{id}/replay` queues. */
    @IsOptional()
    @IntegerIn(1, 1_000_000)
    WEBHOOK_REPLAY_MAX?: number;

    /** Webhook endpoints one company may have. */
    @IsOptional()
    @IntegerIn(1, 1000)
    WEBHOOK_ENDPOINTS_MAX?: number;

    /** Delivery records older than this many days are deleted. */
    @IsOptional()
    @IntegerIn(1, 3650, ' days')
    WEBHOOK_RETENTION_DAYS?: number;
  }
  return WebhookVariables;
}
