import { Command } from 'nest-commander';
import { DocumentRefresher } from '../recordings/document-refresher';
import { AdminCommand, CommonOptions } from './admin-command';

@Command({
  name: 'documents:refresh',
  description:
    'write every waiting document of the read model of meetings and calls now (the worker does it in the background); adds one for any record without',
})
export class DocumentsRefreshCommand extends AdminCommand<CommonOptions> {
  constructor(private readonly refresher: DocumentRefresher) {
    super();
  }

  protected async execute(): Promise<void> {
    const started = Date.now();
    const added = await this.refresher.addMissing();
    const run = await this.refresher.refreshAll();
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    this.output.result(
      { added, ...run, seconds },
      `rendered ${run.rendered} documents in ${run.batches} batches (${seconds} s)` +
        (added ? `; ${added} records had none` : '') +
        (run.removed ? `; removed ${run.removed} of records gone` : ''),
    );
  }
}
