import { parseArgs } from 'node:util';

/** What one bench run seeds and how it loads the service. Every default is the issue's. */
export interface BenchOptions {
  /** Totals across all companies (the first company holds half, the others share the rest). */
  meetings: number;
  calls: number;
  emails: number;
  chats: number;
  emailMessages: number;
  chatMessages: number;
  companies: number;
  /** Seconds of measurement per scenario, after `warmup` seconds that are thrown away. */
  duration: number;
  warmup: number;
  connections: number;
  /** Alternating rounds per contender in the A/B comparisons (audit write, Redis counters). */
  rounds: number;
  /** How deep the deep-page scenario's cursor starts. */
  deepOffset: number;
  /** Meetings of the scaling pass's company, small and large; `scaleTo` 0 skips the pass. */
  scaleFrom: number;
  scaleTo: number;
  /** Meetings `seed:volume` writes with the change triggers and as many without (0 skips the comparison), in `triggerRounds` alternating rounds. */
  triggerMeetings: number;
  triggerRounds: number;
  /** Seconds of each webhook latency run at 100 changes/s (0 skips the webhook pass), and the throughput backlog's changes. */
  webhookSeconds: number;
  webhookBacklog: number;
  /** Skip the bulk pass (#34: the export, include, sync.mjs). */
  skipBulk: boolean;
  /** Skip the noisy-neighbours pass (#48: company B's reads beside the worst mix of other companies). */
  skipNeighbours: boolean;
  /** Keep the embedded database when done (it is deleted otherwise). */
  keep: boolean;
  /** Write a V8 CPU profile of every service process (`<out>/tmp/profiles`), to see where the time goes. */
  profile: boolean;
  out: string;
  /** The Markdown file whose results section is replaced ('' leaves every document alone). */
  docs: string;
}

const USAGE = `npm run bench -- [--meetings N] [--calls N] [--emails N] [--chats N] [--email-messages N]
  [--chat-messages N] [--companies N] [--duration S] [--warmup S] [--connections N] [--rounds N] [--deep-offset N]
  [--scale-from N] [--scale-to N (0 skips the scaling pass)] [--trigger-meetings N (0 skips)] [--trigger-rounds N]
  [--webhook-seconds S (0 skips)] [--webhook-backlog N] [--skip-bulk] [--skip-neighbours] [--keep] [--profile] [--out DIR] [--docs FILE ('' for none)]`;

export function parseBenchOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      meetings: { type: 'string', default: '200000' },
      calls: { type: 'string', default: '200000' },
      emails: { type: 'string', default: '50000' },
      chats: { type: 'string', default: '50000' },
      'email-messages': { type: 'string', default: '10' },
      'chat-messages': { type: 'string', default: '20' },
      companies: { type: 'string', default: '3' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      rounds: { type: 'string', default: '2' },
      'deep-offset': { type: 'string', default: '50000' },
      'scale-from': { type: 'string', default: '10000' },
      'scale-to': { type: 'string', default: '1000000' },
      'trigger-meetings': { type: 'string', default: '1000000' },
      'trigger-rounds': { type: 'string', default: '5' },
      'webhook-seconds': { type: 'string', default: '20' },
      'webhook-backlog': { type: 'string', default: '10000' },
      'skip-bulk': { type: 'boolean', default: false },
      'skip-neighbours': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      out: { type: 'string', default: 'bench/results' },
      docs: { type: 'string', default: 'docs/BENCHMARKS.md' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const int = (name: keyof typeof values, min: number): number => {
    const text = String(values[name]);
    const n = Number(text.replace(/_/g, ''));
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be an integer of at least ${min}\n${USAGE}`);
    return n;
  };
  const options: BenchOptions = {
    meetings: int('meetings', 200),
    calls: int('calls', 1),
    emails: int('emails', 1),
    chats: int('chats', 1),
    emailMessages: int('email-messages', 1),
    chatMessages: int('chat-messages', 1),
    companies: int('companies', 1),
    duration: int('duration', 1),
    warmup: int('warmup', 0),
    connections: int('connections', 1),
    rounds: int('rounds', 1),
    deepOffset: int('deep-offset', 1),
    scaleFrom: int('scale-from', 200),
    scaleTo: int('scale-to', 0),
    triggerMeetings: int('trigger-meetings', 0),
    triggerRounds: int('trigger-rounds', 1),
    webhookSeconds: int('webhook-seconds', 0),
    webhookBacklog: int('webhook-backlog', 100),
    skipBulk: Boolean(values['skip-bulk']),
    skipNeighbours: Boolean(values['skip-neighbours']),
    keep: Boolean(values.keep),
    profile: Boolean(values.profile),
    out: String(values.out),
    docs: String(values.docs),
  };
  if (options.scaleTo && options.scaleTo <= options.scaleFrom) throw new Error(`--scale-to must exceed --scale-from (or be 0)\n${USAGE}`);
  return options;
}

/** How many of `total` the company at `index` gets: the first half, the others an equal share of the rest. */
export function shareOf(total: number, index: number, companies: number): number {
  if (companies === 1) return total;
  const first = Math.ceil(total / 2);
  if (index === 0) return first;
  const rest = total - first;
  const each = Math.floor(rest / (companies - 1));
  return index === companies - 1 ? rest - each * (companies - 2) : each;
}

/**
 * `--<name> N` flags, each a positive integer, their defaults given by name (`{ runs: 200 }` reads
 * `--runs`): what the single-question benches (bench:feed-types, bench:webhook-deliveries) take.
 */
export function integerFlags<T extends Record<string, number>>(argv: readonly string[], defaults: T): T {
  const read = Object.entries(defaults).map(([name, fallback]) => {
    const flag = `--${name}`;
    const at = argv.indexOf(flag);
    const value = at >= 0 ? Number(argv[at + 1]) : fallback;
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${flag} must be a positive integer`);
    return [name, value];
  });
  return Object.fromEntries(read) as T;
}
