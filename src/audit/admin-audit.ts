import { Injectable } from '@nestjs/common';
import { Client } from 'pg';
import { newRequestId } from '../common/http/request-id.middleware';
import { DatabaseUrls } from '../config/database-urls';

/**
 * Admin actions that change what a credential can do are written to the same trail as API
 * requests (method `CLI`, the command as the route), as the trail's owner, before the command
 * reports success: an investigation reads one trail.
 */
/** The admin commands written to the trail: a company sees them in its own (`GET /v1/audit-events`, `route` the command). */
export const AUDITED_COMMANDS = [
  'client:expire-previous-secret',
  'webhooks:add',
  'webhooks:remove',
  'webhooks:rotate-secret',
  'webhooks:expire-previous-secret',
  'webhooks:replay',
] as const;

@Injectable()
export class AdminAudit {
  constructor(private readonly urls: DatabaseUrls) {}

  /** `client` is the credential acted on, if any; `resources` the other ids (a webhook endpoint). */
  async record(action: {
    command: (typeof AUDITED_COMMANDS)[number];
    company: string;
    client?: string;
    resources?: string[];
  }): Promise<void> {
    const db = new Client({ connectionString: this.urls.auditOwner, application_name: 'conversation-read-api-admin' });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO audit_events (occurred_at, request_id, company, client, method, route, status, resource_ids)
         VALUES (now(), $1, $2, $3, 'CLI', $4, 200, $5)`,
        [newRequestId(), action.company, action.client ?? null, action.command, JSON.stringify(action.resources ?? [])],
      );
    } finally {
      await db.end();
    }
  }
}
