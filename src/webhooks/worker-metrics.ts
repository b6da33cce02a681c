import { Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../metrics/metrics';
import { OwnerPool } from '../database/owner-pool';
import { CHANGE_OBJECTS } from '../changes/change.vocabulary';
import { FEED_HORIZON, feedWindow } from '../changes/changes.repository';
import { SENDABLE } from './webhook-deliveries.repository';

/** One reading of the feed's and the webhooks' backlog: what every gauge below shows. */
interface Backlog {
  feed_lag: number;
  dispatch_lag: number;
  pending: number;
  oldest_pending: number;
  waiting_paused: number;
  enabled: number;
  disabled: number;
  failing: number;
}

/** Readings are shared by the gauges of one scrape. */
const FRESH_MS = 1000;

/**
 * The worker's gauges, read as the schema owner at scrape time in one statement:
 * - `change_feed_lag_seconds`: how long the oldest committed entry has waited above the feed's
 *   horizon (a transaction older than it still running holds every reader and the dispatcher
 *   back; 0 when nothing waits);
 * - `webhook_dispatch_lag_seconds`: the oldest entry below the horizon that an enabled endpoint's
 *   dispatcher has not read yet, across endpoints (types aside);
 * - `webhook_deliveries_pending`: the deliveries not yet delivered (first attempts and retries),
 *   paused endpoints' included, and `webhook_oldest_pending_delivery_seconds`, the oldest of them
 *   that is not waiting on a pause;
 * - `webhook_deliveries_waiting{reason="paused"}`: those of `webhook_deliveries_pending` that wait
 *   for their endpoint's resume (test events aside: they are sent while paused);
 * - `webhook_endpoints{state}`, by the state the API shows: `disabled` (paused), else `failing`,
 *   else `enabled`.
 * A paused endpoint's waiting work (its retries, and the feed's entries after its position) is
 * its integrator's choice, not the worker falling behind: it is left out of the lag and the age,
 * which alerts watch, and shown by the `paused` gauge and the `disabled` endpoints.
 * Each walk is an index lookup per company or per endpoint, not a scan of the log.
 */
@Injectable()
export class WorkerMetrics implements OnModuleInit {
  private reading?: { at: number; backlog: Promise<Backlog> };

  constructor(
    private readonly metrics: Metrics,
    private readonly db: OwnerPool,
  ) {}

  onModuleInit(): void {
    const read = (pick: (b: Backlog) => number) => async () => pick(await this.backlog());
    this.metrics.gauge(
      'change_feed_lag_seconds',
      'Age of the oldest committed change-log entry the feed cannot serve yet (held by an older open transaction).',
      [{ read: read((b) => b.feed_lag) }],
    );
    this.metrics.gauge('webhook_dispatch_lag_seconds', 'Age of the oldest servable change-log entry some endpoint has not read yet.', [
      { read: read((b) => b.dispatch_lag) },
    ]);
    this.metrics.gauge('webhook_deliveries_pending', 'Webhook deliveries not yet delivered (first attempts and retries).', [
      { read: read((b) => b.pending) },
    ]);
    this.metrics.gauge('webhook_oldest_pending_delivery_seconds', 'Age of the oldest webhook delivery not yet delivered.', [
      { read: read((b) => b.oldest_pending) },
    ]);
    this.metrics.gauge(
      'webhook_deliveries_waiting',
      'Webhook deliveries not yet delivered that wait on purpose, by reason (paused: their endpoint is disabled).',
      [{ labels: { reason: 'paused' }, read: read((b) => b.waiting_paused) }],
    );
    this.metrics.gauge('webhook_endpoints', 'Webhook endpoints by state (enabled, disabled: paused, failing: retries exhausted).', [
      { labels: { state: 'enabled' }, read: read((b) => b.enabled) },
      { labels: { state: 'disabled' }, read: read((b) => b.disabled) },
      { labels: { state: 'failing' }, read: read((b) => b.failing) },
    ]);
  }

  private backlog(): Promise<Backlog> {
    const now = Date.now();
    if (!this.reading || now - this.reading.at > FRESH_MS) {
      const backlog = this.db.pool.query<Backlog>(BACKLOG_SQL).then((r) => r.rows[0]);
      backlog.catch(() => (this.reading = undefined));
      this.reading = { at: now, backlog };
    }
    return this.reading.backlog;
  }
}

/** Per company and type, the first entry (a probe of the primary key each) of `c` where `condition` holds. */
const firstEntries = (company: string, condition: string) =>
  CHANGE_OBJECTS.map(
    (o) => `(SELECT c.committed_at FROM change_log c WHERE c.company_id = ${company} AND c.object = '${o}' AND ${condition}
      ORDER BY c.epoch, c.xid, c.seq LIMIT 1)`,
  ).join(' UNION ALL ');

const BACKLOG_SQL = `
  WITH h AS (${FEED_HORIZON})
  SELECT
    coalesce((SELECT extract(epoch FROM now() - min(o.committed_at))
      FROM companies co, h CROSS JOIN LATERAL (${firstEntries('co.id', '(c.epoch, c.xid) >= (h.live, h.horizon)')}) o), 0)::float8 AS feed_lag,
    coalesce((SELECT extract(epoch FROM now() - min(n.committed_at))
      FROM webhook_endpoints e, h CROSS JOIN LATERAL (
        ${firstEntries('e.company_id', feedWindow('c', ['e.position_epoch', 'e.position_xid', 'e.position_seq']))}) n
      WHERE e.enabled), 0)::float8 AS dispatch_lag,
    (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::float8 AS pending,
    coalesce((SELECT extract(epoch FROM now() - min(d.created_at)) FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.status = 'pending' AND ${SENDABLE}), 0)::float8 AS oldest_pending,
    (SELECT count(*) FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.status = 'pending' AND NOT ${SENDABLE})::float8 AS waiting_paused,
    es.enabled, es.disabled, es.failing
  FROM (SELECT count(*) FILTER (WHERE enabled AND state <> 'failing')::float8 AS enabled,
          count(*) FILTER (WHERE NOT enabled)::float8 AS disabled,
          count(*) FILTER (WHERE enabled AND state = 'failing')::float8 AS failing
        FROM webhook_endpoints) es`;
