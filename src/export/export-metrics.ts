import { Injectable, OnModuleInit } from '@nestjs/common';
import { Metrics } from '../metrics/metrics';
import { EXPORT_OUTCOMES, ExportOutcome } from './ndjson-stream';

/**
 * The export streams' counters and gauges, kept here and read at scrape time:
 * - `exports_started_total` (after their checks, their slot and their audit row) and
 *   `exports_ended_total{outcome}`; `exports_running` is the difference;
 * - `export_records_total`, `export_bytes_total` and `export_seconds_total`, summed over streams;
 * - `export_oldest_snapshot_seconds`: the age of the oldest open snapshot, which holds back vacuum.
 */
@Injectable()
export class ExportMetrics implements OnModuleInit {
  readonly stats = {
    started: 0,
    records: 0,
    bytes: 0,
    ended: Object.fromEntries(EXPORT_OUTCOMES.map((o) => [o, 0])) as Record<ExportOutcome, number>,
    seconds: 0,
  };
  /** When each open export snapshot began (ms since the epoch). */
  private readonly snapshots = new Set<{ since: number }>();

  constructor(private readonly metrics: Metrics) {}

  onModuleInit(): void {
    const stats = this.stats;
    this.metrics.counter('exports_started_total', 'Export streams started (after their checks, their slot and their audit row).', [
      { read: () => stats.started },
    ]);
    this.metrics.counter(
      'exports_ended_total',
      'Export streams ended, by outcome.',
      EXPORT_OUTCOMES.map((outcome) => ({ labels: { outcome }, read: () => stats.ended[outcome] })),
    );
    this.metrics.counter('export_records_total', 'Records written by export streams.', [{ read: () => stats.records }]);
    this.metrics.counter('export_bytes_total', 'Bytes of NDJSON written by export streams (before compression).', [
      { read: () => stats.bytes },
    ]);
    this.metrics.counter('export_seconds_total', 'Seconds export streams ran, summed.', [{ read: () => stats.seconds }]);
    this.metrics.gauge('exports_running', 'Export streams running now.', [{ read: () => this.running() }]);
    this.metrics.gauge('export_oldest_snapshot_seconds', 'Age of the oldest open export snapshot (it holds back vacuum); 0 when none.', [
      { read: () => this.oldestSnapshotSeconds() },
    ]);
  }

  /** A snapshot open since `since` (ms since the epoch); the function returned says it closed. */
  snapshotOpened(since: number): () => void {
    const snapshot = { since };
    this.snapshots.add(snapshot);
    return () => this.snapshots.delete(snapshot);
  }

  started(): void {
    this.stats.started++;
  }

  wrote(records: number): void {
    this.stats.records += records;
  }

  ended(outcome: ExportOutcome, bytes: number, seconds: number): void {
    this.stats.ended[outcome]++;
    this.stats.bytes += bytes;
    this.stats.seconds += seconds;
  }

  /** Every stream started has ended once, or runs: counted as they start and end, in the same turn. */
  private running(): number {
    return this.stats.started - EXPORT_OUTCOMES.reduce((sum, outcome) => sum + this.stats.ended[outcome], 0);
  }

  private oldestSnapshotSeconds(): number {
    let oldest = Infinity;
    for (const { since } of this.snapshots) oldest = Math.min(oldest, since);
    return oldest === Infinity ? 0 : (Date.now() - oldest) / 1000;
  }
}
