import { CanActivate, Controller, ExecutionContext, Get, Injectable, Module, Param, Query, UseGuards } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { Authenticated, Public } from '../../src/auth/auth.decorators';
import { CursorCodec } from '../../src/common/cursors/cursor-codec';
import { Collection, keysetPage, Page } from '../../src/common/cursors/keyset-page';
import { ApiError } from '../../src/common/errors/api-error';
import { ERROR_CODES, ErrorCode } from '../../src/common/errors/error-codes';
import { Principal, RequestStore } from '../../src/common/http/request-context';
import {
  BooleanFilter,
  DateTimeParam,
  EmailFilter,
  EnumFilter,
  LaterThan,
  NoQuery,
  PageQuery,
} from '../../src/common/validation/query-params';
import { Instant } from '../../src/common/validation/instant';
import { TenantTransaction } from '../../src/database/tenant-transaction';

/**
 * Test-only routes that exercise the shared request pipeline (envelopes, validation,
 * cursors, errors, tenant transaction) before any domain route exists to do it.
 */
class ProbeListQuery extends PageQuery {
  @DateTimeParam('Items created after this instant.')
  created_after?: Instant;

  @DateTimeParam('Items created before this instant.')
  @LaterThan('created_after')
  created_before?: Instant;

  @EnumFilter(['video', 'audio'], 'Media.')
  type?: string;

  @BooleanFilter('Has a transcript.')
  has_transcript?: boolean;

  @EmailFilter('Owner email.')
  owner_email?: string;
}

export const PROBE_ITEMS = Array.from({ length: 23 }, (_, i) => ({
  id: `item_${String(i).padStart(2, '0')}`,
  n: i,
  type: i % 2 ? 'audio' : 'video',
}));

/** Sets the principal from `x-test-company` (internal id), standing in for the bearer guard. */
@Injectable()
class TestPrincipalGuard implements CanActivate {
  constructor(private readonly cls: ClsService<RequestStore>) {}

  canActivate(context: ExecutionContext): boolean {
    const companyId = context.switchToHttp().getRequest().headers['x-test-company'];
    const principal: Principal = {
      companyId,
      companyPublicId: 'cmp_test',
      companyName: 'Test',
      clientId: 'cli_test',
      clientName: 'Test',
      scopes: [],
    };
    this.cls.set('principal', principal);
    return true;
  }
}

/** Public to the bearer guard: these routes test the pipeline behind it, not authentication. */
@Public()
@Controller('v1/_probe')
class ProbeController {
  constructor(
    private readonly codec: CursorCodec,
    private readonly tenant: TenantTransaction,
  ) {}

  @Get('items')
  list(@Query() query: ProbeListQuery): Page<{ id: string }> {
    const filters = {
      type: query.type,
      has_transcript: query.has_transcript,
      owner_email: query.owner_email,
      created_after: query.created_after?.iso,
      created_before: query.created_before?.iso,
    };
    const binding = { route: 'GET /v1/_probe/items', company: 'probe', filters };
    const after = query.cursor ? Number(this.codec.open(query.cursor, binding)[0]) : -1;
    const rows = PROBE_ITEMS.filter((item) => (!query.type || item.type === query.type) && item.n > after).slice(0, query.limit + 1);
    return keysetPage(
      rows,
      query.limit,
      (r) => [r.n],
      (page) => page.map(({ id, type }) => ({ id, type })),
      this.codec,
      binding,
    );
  }

  @Get('items/:id')
  get(@Param('id') id: string, @Query() _query: NoQuery): { id: string } {
    const item = PROBE_ITEMS.find((i) => i.id === id);
    if (!item) throw ApiError.notFound();
    return { id: item.id };
  }

  @Get('answers')
  answers(@Query() _query: NoQuery): Collection<{ n: number }> {
    return new Collection([{ n: 1 }, { n: 2 }]);
  }

  @Get('errors/:code')
  fail(@Param('code') code: string, @Query() _query: NoQuery): never {
    if (code === 'crash') throw new Error("SELECT secret_column FROM secret_table WHERE token = 'tok_live_123'");
    if (code === 'db-down') throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    if (code === 'pool-timeout') throw new Error('timeout exceeded when trying to connect');
    if (!(code in ERROR_CODES)) throw ApiError.notFound();
    throw new ApiError(code as ErrorCode);
  }

  /** A statement that runs `ms` milliseconds inside the tenant transaction (statement timeouts, pool exhaustion). */
  @UseGuards(TestPrincipalGuard)
  @Get('sleep/:ms')
  async sleep(@Param('ms') ms: string, @Query() _query: NoQuery): Promise<{ slept: number }> {
    if (!/^\d{1,6}$/.test(ms)) throw ApiError.notFound();
    await this.tenant.query('SELECT pg_sleep($1::int / 1000.0)', [Number(ms)]);
    return { slept: Number(ms) };
  }

  /** The server-side budgets of the connection a tenant transaction runs on. */
  @UseGuards(TestPrincipalGuard)
  @Get('settings')
  async settings(@Query() _query: NoQuery): Promise<Record<string, string>> {
    const [row] = await this.tenant.query<Record<string, string>>(
      `SELECT current_setting('statement_timeout') AS statement_timeout,
              current_setting('idle_in_transaction_session_timeout') AS idle_in_transaction_session_timeout`,
      [],
    );
    return row;
  }

  /** Which backend a tenant transaction ran on, and how many prepared statements that backend keeps. */
  @UseGuards(TestPrincipalGuard)
  @Get('statements')
  async statements(@Query() _query: NoQuery): Promise<{ pid: number; prepared: number }> {
    const [row] = await this.tenant.query<{ pid: number; prepared: number }>(
      'SELECT pg_backend_pid() AS pid, (SELECT count(*)::int FROM pg_prepared_statements) AS prepared',
      [],
    );
    return row;
  }

  @UseGuards(TestPrincipalGuard)
  @Get('companies')
  async companies(@Query() _query: NoQuery): Promise<Collection<string>> {
    // Deliberately no company filter: row-level security alone must hide other tenants.
    const rows = await this.tenant.query<{ public_id: string }>('SELECT public_id FROM companies ORDER BY id', []);
    return new Collection(rows.map((r) => r.public_id));
  }
}

/** Behind the real bearer and scope guards: stands in for domain routes until they exist. */
@Controller('v1/_probe/auth')
class AuthenticatedProbeController {
  constructor(private readonly tenant: TenantTransaction) {}

  @Get('transcripts')
  @Authenticated('meetings.read', 'transcriptions.read')
  transcripts(@Query() _query: NoQuery): { ok: true } {
    return { ok: true };
  }

  @Get('companies')
  @Authenticated()
  async companies(@Query() _query: NoQuery): Promise<Collection<string>> {
    // No company filter: what the token's tenant transaction lets through is what is seen.
    const rows = await this.tenant.query<{ public_id: string }>('SELECT public_id FROM companies ORDER BY id', []);
    return new Collection(rows.map((r) => r.public_id));
  }
}

@Module({ controllers: [ProbeController, AuthenticatedProbeController], providers: [TestPrincipalGuard] })
export class PipelineProbeModule {}
