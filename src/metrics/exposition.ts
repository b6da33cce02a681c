/** One sample of Prometheus's text exposition format: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * The samples of a scrape (comments and blank lines skipped). Enough for our tests and the
 * bench's check of a live scrape; label values are unescaped (`\\`, `\"`, `\n`).
 */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (m[2] ?? '').matchAll(LABEL)) labels[key] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** The family a sample belongs to: a histogram's `_bucket`, `_sum` and `_count` belong to it. */
export function familyOf(sample: string): string {
  return sample.replace(/_(bucket|sum|count)$/, '');
}
