import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ClsService } from 'nestjs-cls';
import { CursorBinding, CursorCodec } from '../common/cursors/cursor-codec';
import { keysetPage, Page } from '../common/cursors/keyset-page';
import { AUDITED_COMMANDS } from '../audit/admin-audit';
import { ApiError } from '../common/errors/api-error';
import { principalOf, RequestStore } from '../common/http/request-context';
import { RouteTable } from '../common/http/route-table';
import { TenantTransaction } from '../database/tenant-transaction';
import { AuditEventIds } from './audit-event-ids';
import { AuditEventDto } from './audit-event.dto';
import { AuditEventRow, AuditEventScan, AuditEventsRepository } from './audit-events.repository';
import { ListAuditEventsQuery } from './list-audit-events.query';

export const AUDIT_EVENTS_ROUTE = 'GET /v1/audit-events';

/**
 * A company's own audit trail, newest first: every request its clients (or anyone naming one of
 * them) made to the API and the token endpoint, as recorded, filtered as asked. Keyset pages over
 * (occurred_at, key) descending: rows written while a client pages are newer than its position and
 * never shift the pages after it. A page examines at most AUDIT_SCAN_ROWS rows: a rare filter
 * answers short pages (`has_more` with a cursor after the last row examined), never a timeout.
 */
@Injectable()
export class AuditEventsService {
  private readonly logger = new Logger('AuditEvents');

  constructor(
    private readonly events: AuditEventsRepository,
    private readonly ids: AuditEventIds,
    private readonly codec: CursorCodec,
    private readonly modules: ModuleRef,
    private readonly tenant: TenantTransaction,
    private readonly cls: ClsService<RequestStore>,
  ) {}

  async list(query: ListAuditEventsQuery): Promise<Page<AuditEventDto>> {
    const principal = principalOf(this.cls);
    if (query.route !== undefined && !this.routes().auditedTemplates().includes(query.route) && !isAuditedCommand(query.route)) {
      throw new ApiError(
        'INVALID_FILTER',
        'route must be one of the API’s route templates, such as GET /v1/meetings/{meeting_id} (docs/API.md lists them).',
      );
    }
    const filters = {
      client: query.client_id,
      route: query.route,
      status: query.status,
      resource: query.resource_id,
      after: query.occurred_after?.iso,
      before: query.occurred_before?.iso,
    };
    const binding: CursorBinding = {
      route: AUDIT_EVENTS_ROUTE,
      company: principal.companyId,
      filters: {
        client_id: filters.client,
        route: filters.route,
        status: filters.status && `${filters.status.min}-${filters.status.max}`,
        resource_id: filters.resource,
        occurred_after: filters.after,
        occurred_before: filters.before,
      },
    };
    const position = query.cursor === undefined ? null : this.openCursor(query.cursor, binding);
    let scan: AuditEventScan;
    try {
      scan = await this.events.page(principal.companyPublicId, filters, position, query.limit + 1);
    } catch (error) {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'audit trail not read');
      throw new ApiError('AUDIT_UNAVAILABLE', 'The audit trail could not be read; retry with backoff.');
    }
    const { rows, scanEnd } = scan;
    const names = await this.tenant.run(principal.companyId, () => this.clientNames(rows), 'read');
    if (scanEnd) {
      // The scan bound ended the read before the page filled: a short page (maybe empty) that
      // goes on after the last row examined, as the change feed's bounded pages do.
      const served = rows.slice(0, query.limit);
      return new Page(
        served.map((row) => this.present(row, names)),
        { limit: query.limit, has_more: true, next_cursor: this.codec.seal(binding, scanEnd) },
      );
    }
    return keysetPage(
      rows,
      query.limit,
      (row) => [row.position, row.key],
      (served) => served.map((row) => this.present(row, names)),
      this.codec,
      binding,
    );
  }

  /** The app's route table (the root module's, filled once the app is initialised). */
  private routes(): RouteTable {
    return this.modules.get(RouteTable, { strict: false });
  }

  private openCursor(cursor: string, binding: CursorBinding): [string, string] {
    const position = this.codec.open(cursor, binding).map(String);
    if (position.length !== 2 || !position.every((part) => /^-?\d{1,20}$/.test(part))) {
      throw new ApiError('INVALID_CURSOR', 'The cursor is not valid for this request.');
    }
    return [position[0], position[1]];
  }

  /** The current names of the clients the rows name (the trail keeps their ids only). */
  private async clientNames(rows: AuditEventRow[]): Promise<Map<string, string>> {
    const ids = [...new Set(rows.map((row) => row.client).filter((id): id is string => id !== null))];
    if (!ids.length) return new Map();
    const found = await this.tenant.query<{ client_id: string; name: string }>('SELECT client_id, name FROM app_company_clients($1)', [
      ids,
    ]);
    return new Map(found.map((row) => [row.client_id, row.name]));
  }

  private present(row: AuditEventRow, names: Map<string, string>): AuditEventDto {
    return {
      id: this.ids.publicId(row.key),
      object: 'audit_event',
      occurred_at: row.occurred_at,
      request_id: row.request_id,
      client: row.client === null ? null : { id: row.client, name: names.get(row.client) ?? null },
      address: row.address,
      method: row.method,
      route: row.route,
      path_params: row.path_params,
      query: row.query,
      status: row.status,
      resource_ids: row.resource_ids,
      truncated: row.truncated,
      attempts: row.attempts,
    };
  }
}

const isAuditedCommand = (route: string) => (AUDITED_COMMANDS as readonly string[]).includes(route);
