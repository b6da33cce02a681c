import { Inject } from '@nestjs/common';
import { CommandRunner, Option } from 'nest-commander';
import { AdminError } from '../common/errors/admin-error';
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

  /**
   * For the commands that give access: waits for the standbys as a revocation does, so the new
   * credentials are accepted on every instance once the command returns; a standby still behind
   * is a warning on stderr (the change holds; that standby refuses it until it replays), not a failure.
   */
  protected async replayedOrWarn(): Promise<void> {
    try {
      await this.replicas.everywhere('it refuses the new access until it does');
    } catch (error) {
      if (!(error instanceof AdminError) || error.code !== 'REPLICA_BEHIND') throw error;
      process.stderr.write(`warning: ${error.message}\n`);
    }
  }
}
