import { Command, Option } from 'nest-commander';
import { DemoSeeder } from '../seeding/demo-seeder';
import { VolumeSeeder } from '../seeding/volume-seeder';
import { progressBar } from './cli-output';
import { AdminCommand, CommonOptions } from './admin-command';
import { integerOption, required, textOption } from './option-parsers';

@Command({ name: 'seed:demo', description: 'create a demo company with data in every documented state, and a client holding every scope' })
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
