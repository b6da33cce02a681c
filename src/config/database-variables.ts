import { IsOptional, Matches } from 'class-validator';
import { Type } from 'class-transformer';
import { DURATION, IntegerIn, POSTGRES_URL, Satisfies, VariablesBase } from './environment-rules';

/** Where the data lives and how the service holds its connections: the databases, their pools and timeouts, the audit trail and the change log. */
export function withDatabaseVariables<Base extends VariablesBase>(base: Base) {
  class DatabaseVariables extends base {
    @IsOptional()
    @Matches(POSTGRES_URL, { message: 'must be a postgres:// connection URL' })
    DATABASE_URL?: string;

    @IsOptional()
    @Matches(POSTGRES_URL, { message: 'must be a postgres:// connection URL' })
    MIGRATION_DATABASE_URL?: string;

    @IsOptional()
    @Matches(POSTGRES_URL, { message: 'must be a postgres:// connection URL' })
    AUDIT_DATABASE_URL?: string;

    @IsOptional()
    @Matches(POSTGRES_URL, { message: 'must be a postgres:// connection URL' })
    AUDIT_MIGRATION_DATABASE_URL?: string;

    /** Hot standbys of DATABASE_URL (the API role on each), comma-separated: the `/v1` reads run there. */
    @IsOptional()
    @Satisfies(
      (v) => typeof v === 'string' && v.split(',').every((url) => POSTGRES_URL.test(url.trim())),
      'must be postgres:// connection URLs separated by commas',
    )
    DATABASE_REPLICA_URLS?: string;

    /** A standby further behind the primary than this is not read from until it catches up. */
    @IsOptional()
    @IntegerIn(1, 3600, ' seconds')
    REPLICA_MAX_LAG_SECONDS?: number;

    /** How long a revoking admin command waits for every standby to replay it before it fails, naming the one behind. */
    @IsOptional()
    @IntegerIn(1, 3600, ' seconds')
    REPLICA_REVOCATION_WAIT_SECONDS?: number;

    /** How often each API instance measures its standbys' lag. */
    @IsOptional()
    @IntegerIn(50, 60000, ' milliseconds')
    REPLICA_CHECK_INTERVAL_MS?: number;

    @IsOptional()
    @Matches(/^\S+$/, { message: 'must be a directory path' })
    DATA_DIR?: string;

    @IsOptional()
    @IntegerIn(1, 200)
    DB_POOL_SIZE?: number;

    /** The part of DB_POOL_SIZE one company may hold at once (rounded up, at least one connection); its further requests wait their turn. */
    @IsOptional()
    @Type(() => Number)
    @Satisfies(
      (v) => typeof v === 'number' && v > 0 && v <= 1,
      'must be a fraction of DB_POOL_SIZE greater than 0 and at most 1 (such as 0.5)',
    )
    DB_POOL_COMPANY_SHARE?: number;

    /** Connections of the schema owner's pool in the worker and the admin commands. */
    @IsOptional()
    @IntegerIn(1, 200)
    OWNER_POOL_SIZE?: number;

    @IsOptional()
    @IntegerIn(100, 600000, ' milliseconds')
    DB_STATEMENT_TIMEOUT_MS?: number;

    @IsOptional()
    @IntegerIn(100, 60000, ' milliseconds')
    DB_CONNECT_TIMEOUT_MS?: number;

    @IsOptional()
    @IntegerIn(0, 1000)
    DB_MAX_PREPARED_STATEMENTS?: number;

    @IsOptional()
    @IntegerIn(1, 86400, ' seconds')
    DB_CONNECTION_LIFETIME_SECONDS?: number;

    @IsOptional()
    @IntegerIn(1, 1_000_000_000)
    DB_CONNECTION_MAX_USES?: number;

    @IsOptional()
    @IntegerIn(10, 60000, ' milliseconds')
    AUDIT_TIMEOUT_MS?: number;

    /** Rows of the trail one `GET /v1/audit-events` page may examine; past that the page is short, with has_more and a cursor. */
    @IsOptional()
    @IntegerIn(100, 1_000_000)
    AUDIT_SCAN_ROWS?: number;

    /** Connections of the audit reader (`GET /v1/audit-events`); one company holds one at a time. */
    @IsOptional()
    @IntegerIn(1, 50)
    AUDIT_READ_POOL_SIZE?: number;

    @IsOptional()
    @IntegerIn(1, 1_000_000)
    AUDIT_QUEUE_LIMIT?: number;

    @IsOptional()
    @IntegerIn(1, 36500, ' days')
    AUDIT_RETENTION_DAYS?: number;

    /** Change-log entries older than this are compacted to the newest per object: `<n>` seconds, or `<n>s|m|h|d`. */
    @IsOptional()
    @Matches(DURATION, { message: 'must be a duration such as 7d, 12h, 30m or 3600 (seconds), at least 1 second' })
    CHANGES_COMPACT_AFTER?: string;

    /** How often each instance tries to compact the change log (one at a time across instances); 0: never in the background. */
    @IsOptional()
    @IntegerIn(0, 86400, ' seconds')
    CHANGES_COMPACT_INTERVAL_SECONDS?: number;
  }
  return DatabaseVariables;
}
