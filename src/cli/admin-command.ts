import { Inject } from '@nestjs/common';
import { CommandRunner, Option } from 'nest-commander';
import { ReplicaReplay } from '../database/replica-replay';
import { CLI_OUTPUT, CliOutput } from './cli-output';

/** Options every admin command takes. */
export interface CommonOptions {
  json?: boolean;
}

/**
 * Base of every admin command: the shared `--json` flag and the output contract. `O` is the
 * command's options as its `@Option` parsers produce them (an option not given is absent).
 */
export abstract class AdminCommand<O extends CommonOptions = CommonOptions> extends CommandRunner {
  @Inject(CLI_OUTPUT) protected readonly output: CliOutput;
  /** For the commands that take access away: they return once every hot standby replayed the change. */
  @Inject(ReplicaReplay) protected readonly replicas: ReplicaReplay;

  @Option({ flags: '--json', description: 'print one JSON object on stdout' })
  parseJson(): boolean {
    return true;
  }

  async run(params: string[], options: O): Promise<void> {
    try {
      await this.execute(params, options);
    } catch (error) {
      this.output.failure(error);
    }
  }

  protected abstract execute(params: string[], options: O): Promise<void>;
}
