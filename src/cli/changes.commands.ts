import { Command, Option } from 'nest-commander';
import { ChangeCompaction } from '../changes/change-compaction';
import { AdminCommand, CommonOptions } from './admin-command';
import { instantOption } from './option-parsers';

interface ChangesCompactOptions extends CommonOptions {
  before?: string;
}

@Command({
  name: 'changes:compact',
  description: 'merge change-log entries older than CHANGES_COMPACT_AFTER (or --before) into the newest entry of their object',
})
export class ChangesCompactCommand extends AdminCommand<ChangesCompactOptions> {
  constructor(private readonly compaction: ChangeCompaction) {
    super();
  }

  @Option({ flags: '--before <instant>', description: 'compact entries committed before this RFC 3339 instant instead' })
  parseBefore(value: string): string {
    return instantOption('before', value);
  }

  protected async execute(_params: string[], options: ChangesCompactOptions): Promise<void> {
    const run = await this.compaction.compact(options.before ? new Date(options.before) : undefined);
    this.output.result(
      run,
      run.busy
        ? `another instance is compacting; merged ${run.merged} objects in ${run.batches} batches before it took over`
        : `merged ${run.merged} objects in ${run.batches} batches`,
    );
  }
}
