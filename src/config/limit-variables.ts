import { IsOptional, Matches } from 'class-validator';
import { IntegerIn, QUOTA, REDIS_URL, VariablesBase } from './environment-rules';

/** What one client or company may take: the rate-limit quotas and their store, heavy work, page size, and the export streams. */
export function withLimitVariables<Base extends VariablesBase>(base: Base) {
  class LimitVariables extends base {
    @IsOptional()
    @Matches(REDIS_URL, { message: 'must be a redis:// or rediss:// URL' })
    REDIS_URL?: string;

    @IsOptional()
    @IntegerIn(50, 10000, ' milliseconds')
    REDIS_TIMEOUT_MS?: number;

    @IsOptional()
    @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 600/60' })
    RATE_LIMIT_CLIENT?: string;

    @IsOptional()
    @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 1800/60' })
    RATE_LIMIT_COMPANY?: string;

    @IsOptional()
    @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 300/60' })
    RATE_LIMIT_EMAIL_CONTENT?: string;

    @IsOptional()
    @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 300/60' })
    RATE_LIMIT_CHAT_CONTENT?: string;

    /** Export streams (`GET /v1/export`) per client. */
    @IsOptional()
    @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 20/3600' })
    RATE_LIMIT_EXPORT?: string;

    /** Calls to `/v1/webhook-endpoints` per client. */
    @IsOptional()
    @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 60/60' })
    RATE_LIMIT_WEBHOOK_ADMIN?: string;

    @IsOptional()
    @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 60/60' })
    RATE_LIMIT_TOKEN?: string;

    /** Failed authentications (401) per client address; past it the address's failures (and its token requests, before the secret is checked) are answered 429, each held a second. */
    @IsOptional()
    @Matches(QUOTA, { message: 'must be <quota>/<window seconds>, e.g. 100/60' })
    RATE_LIMIT_UNAUTHENTICATED?: string;

    /** Heavy work (an `include` part of 10 units or more: a transcript, messages; a filtered audit-trail read) running at once in an instance, one per company; the rest waits its turn. */
    @IsOptional()
    @IntegerIn(1, 200)
    HEAVY_REQUESTS_MAX?: number;

    /** A list page stops before the item that would take its body past this many bytes (always one item at least). */
    @IsOptional()
    @IntegerIn(1024, 268_435_456, ' bytes')
    PAGE_BYTES_MAX?: number;

    /** Export streams one company may run at once (more: 429 with Retry-After). */
    @IsOptional()
    @IntegerIn(1, 100)
    EXPORT_CONCURRENCY?: number;

    /** An export stream whose reader takes no byte for this long is cut. */
    @IsOptional()
    @IntegerIn(1, 3600, ' seconds')
    EXPORT_IDLE_SECONDS?: number;

    /** Connections of the export streams' own pool: also how many exports one instance runs at once, across companies. */
    @IsOptional()
    @IntegerIn(1, 100)
    EXPORT_POOL_SIZE?: number;

    /** An export stream still running this long is cut (the client resumes with after=). */
    @IsOptional()
    @IntegerIn(1, 86_400, ' seconds')
    EXPORT_MAX_SECONDS?: number;

    /** An export stream whose reader accepts fewer bytes than this per minute (after its first window) is cut; 0: no minimum. */
    @IsOptional()
    @IntegerIn(0, 1_073_741_824, ' bytes')
    EXPORT_MIN_BYTES_PER_MINUTE?: number;

    /** The window the minimum rate is measured over (its minimum: EXPORT_MIN_BYTES_PER_MINUTE scaled to the window). */
    @IsOptional()
    @IntegerIn(1, 3600, ' seconds')
    EXPORT_RATE_WINDOW_SECONDS?: number;
  }
  return LimitVariables;
}
