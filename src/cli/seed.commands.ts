import { Command, Option } from 'nest-commander';
import { AdminError } from '../common/errors/admin-error';
import { DemoSeeder } from '../seeding/demo-seeder';
import { VolumeSeeder } from '../seeding/volume-seeder';
import { progressBar } from './cli-output';
import { AdminCommand, requireOption } from './admin-command';

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

const VOLUME_FLAGS = ['meetings', 'calls', 'emails', 'chats', 'messages'] as const;
const MAX_VOLUME = 10_000_000;
const MAX_MESSAGES = 1_000;

@Command({ name: 'seed:volume', description: 'bulk-generate records for an existing company (benchmarks, capacity tests)' })
export class SeedVolumeCommand extends AdminCommand {
  constructor(private readonly volume: VolumeSeeder) {
    super();
  }

  @Option({ flags: '--company <id>', description: 'company id (cmp_…)' })
  parseCompany(value: string): string {
    return value;
  }

  @Option({ flags: '--meetings <n>', description: 'meetings with their relations (default 0)' })
  parseMeetings(value: string): string {
    return value;
  }

  @Option({ flags: '--calls <n>', description: 'calls with their relations (default 0)' })
  parseCalls(value: string): string {
    return value;
  }

  @Option({ flags: '--emails <n>', description: 'e-mail conversations (default 0)' })
  parseEmails(value: string): string {
    return value;
  }

  @Option({ flags: '--chats <n>', description: 'chat conversations (default 0)' })
  parseChats(value: string): string {
    return value;
  }

  @Option({ flags: '--messages <n>', description: `messages per e-mail and per chat conversation (1 to ${MAX_MESSAGES}, default 10)` })
  parseMessages(value: string): string {
    return value;
  }

  protected async execute(_params: string[], options: Record<string, unknown>): Promise<void> {
    const company = requireOption(options, 'company');
    const counts = Object.fromEntries(
      VOLUME_FLAGS.map((flag) => {
        const raw = options[flag] ?? (flag === 'messages' ? '10' : '0');
        const n = /^\d+$/.test(String(raw)) ? Number(raw) : NaN;
        const [min, max] = flag === 'messages' ? [1, MAX_MESSAGES] : [0, MAX_VOLUME];
        if (!Number.isInteger(n) || n < min || n > max)
          throw new AdminError('INVALID_ARGUMENTS', `--${flag} must be an integer from ${min} to ${max}`);
        return [flag, n];
      }),
    ) as Record<(typeof VOLUME_FLAGS)[number], number>;
    const bar = process.stderr.isTTY ? progressBar() : () => undefined;
    const result = await this.volume.seed({ company, ...counts }, bar);
    if (process.stderr.isTTY) process.stderr.write('\n');
    const rate = Math.round((result.meetings + result.calls) / Math.max(result.seconds, 0.1));
    this.output.result(
      result,
      `seeded ${result.company_id}: ${result.meetings} meetings, ${result.calls} calls, ${result.emails} e-mail conversations, ` +
        `${result.chats} chats, ${result.messages} messages in ${result.seconds} s (${rate} meetings and calls/s)`,
    );
  }
}
