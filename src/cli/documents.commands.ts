import { Command } from 'nest-commander';
import { ReadModels } from '../read-model/read-models';
import { AdminCommand, CommonOptions } from './admin-command';

@Command({
  name: 'documents:refresh',
  description:
    'write every waiting document of the read models (meetings and calls, e-mail and chat conversations) now (the worker does it in the background); adds one for any record or conversation without',
})
export class DocumentsRefreshCommand extends AdminCommand<CommonOptions> {
  constructor(private readonly refresher: ReadModels) {
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
        (added ? `; ${added} records or conversations had none` : '') +
        (run.removed ? `; removed ${run.removed} of records or conversations gone` : ''),
    );
  }
}
