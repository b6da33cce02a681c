import { Command, Option } from 'nest-commander';
import { CompaniesService } from '../companies/companies.service';
import { DatabaseUrls } from '../config/database-urls';
import { ActivitySimulator, ActivitySummary, activityDataSource, reportLine } from '../seeding/activity-simulator';
import { DemoSeeder } from '../seeding/demo-seeder';
import { VolumeSeeder } from '../seeding/volume-seeder';
import { progressBar } from './cli-output';
import { AdminCommand, CommonOptions } from './admin-command';
import { decimalOption, integerOption, required, textOption } from './option-parsers';

@Command({
  name: 'seed:demo',
  description: 'create a demo company with data in every documented state, and a client holding every data scope (not audit.read)',
})
export class SeedDemoCommand extends AdminCommand {
  constructor(private readonly demo: DemoSeeder) {
    super();
  }

  protected async execute(): Promise<void> {
    const created = await this.demo.seed();
    this.output.result(
      created,
      [
        `created demo company ${created.company_id}`,
        `client_id:     ${created.client_id}`,
        `client_secret: ${created.client_secret}   (shown only now)`,
      ].join('\n'),
    );
  }
}

const MAX_VOLUME = 10_000_000;
const MAX_MESSAGES = 1_000;

interface SeedVolumeOptions extends CommonOptions {
  company?: string;
  meetings?: number;
  calls?: number;
  emails?: number;
  chats?: number;
  messages?: number;
}

@Command({ name: 'seed:volume', description: 'bulk-generate records for an existing company (benchmarks, capacity tests)' })
export class SeedVolumeCommand extends AdminCommand<SeedVolumeOptions> {
  constructor(private readonly volume: VolumeSeeder) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'company id (cmp_…)' })
  parseCompany(value: string): string {
    return textOption('company', value);
  }

  @Option({ flags: '--meetings <n>', description: 'meetings with their relations (default 0)' })
  parseMeetings(value: string): number {
    return integerOption('meetings', value, 0, MAX_VOLUME);
  }

  @Option({ flags: '--calls <n>', description: 'calls with their relations (default 0)' })
  parseCalls(value: string): number {
    return integerOption('calls', value, 0, MAX_VOLUME);
  }

  @Option({ flags: '--emails <n>', description: 'e-mail conversations (default 0)' })
  parseEmails(value: string): number {
    return integerOption('emails', value, 0, MAX_VOLUME);
  }

  @Option({ flags: '--chats <n>', description: 'chat conversations (default 0)' })
  parseChats(value: string): number {
    return integerOption('chats', value, 0, MAX_VOLUME);
  }

  @Option({ flags: '--messages <n>', description: `messages per e-mail and per chat conversation (1 to ${MAX_MESSAGES}, default 10)` })
  parseMessages(value: string): number {
    return integerOption('messages', value, 1, MAX_MESSAGES);
  }

  protected async execute(_params: string[], options: SeedVolumeOptions): Promise<void> {
    const { meetings = 0, calls = 0, emails = 0, chats = 0, messages = 10 } = options;
    const counts = { meetings, calls, emails, chats, messages };
    const bar = process.stderr.isTTY ? progressBar() : () => undefined;
    const result = await this.volume.seed({ company: required(options.company, 'company'), ...counts }, bar);
    if (process.stderr.isTTY) process.stderr.write('\n');
    const rate = Math.round((result.meetings + result.calls) / Math.max(result.seconds, 0.1));
    this.output.result(
      result,
      `seeded ${result.company_id}: ${result.meetings} meetings, ${result.calls} calls, ${result.emails} e-mail conversations, ` +
        `${result.chats} chats, ${result.messages} messages in ${result.seconds} s (${rate} meetings and calls/s)`,
    );
  }
}

const MAX_MINUTES = 1440;
const MAX_RATE = 6000;

interface SeedActivityOptions extends CommonOptions {
  company?: string;
  minutes?: number;
  rate?: number;
  seed?: number;
}

@Command({
  name: 'seed:activity',
  description: 'write into an existing company as a capture system would, in concurrent transactions, for a while (SIGINT/SIGTERM stop it)',
})
export class SeedActivityCommand extends AdminCommand<SeedActivityOptions> {
  constructor(
    private readonly companies: CompaniesService,
    private readonly urls: DatabaseUrls,
  ) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'company id (cmp_…), with demo or volume data' })
  parseCompany(value: string): string {
    return textOption('company', value);
  }

  @Option({ flags: '--minutes <n>', description: `how long to run (0.01 to ${MAX_MINUTES}, fractions allowed; default 1)` })
  parseMinutes(value: string): number {
    return decimalOption('minutes', value, 0.01, MAX_MINUTES);
  }

  @Option({ flags: '--rate <n>', description: `events (transactions) per minute (1 to ${MAX_RATE}, default 60)` })
  parseRate(value: string): number {
    return integerOption('rate', value, 1, MAX_RATE);
  }

  @Option({ flags: '--seed <n>', description: 'makes the choices repeatable (kinds, long and failing transactions, content)' })
  parseSeed(value: string): number {
    return integerOption('seed', value, 0, 2 ** 31 - 1);
  }

  protected async execute(_params: string[], options: SeedActivityOptions): Promise<void> {
    const company = await this.companies.get(required(options.company, 'company'));
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
    const db = await activityDataSource(this.urls.owner, 'seed-activity');
    try {
      const summary = await new ActivitySimulator(db).run(
        company,
        { minutes: options.minutes ?? 1, rate: options.rate ?? 60, seed: options.seed },
        {
          signal: stop.signal,
          // Stderr: every event, or with --json the unexpected failures only.
          onEvent: (r) => {
            if (!this.output.json || r.outcome === 'failed') process.stderr.write(`${reportLine(r)}\n`);
          },
        },
      );
      this.output.result(summary, summaryText(summary));
    } finally {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      await db.destroy();
    }
  }
}

function summaryText(s: ActivitySummary): string {
  const kinds = Object.entries(s.events)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  return `activity on ${s.company_id}: ${s.transactions} transactions in ${s.seconds} s (${s.committed} committed, ${s.rolled_back} rolled back): ${kinds}`;
}
