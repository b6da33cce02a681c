import { Inject } from '@nestjs/common';
import { CommandRunner, Option } from 'nest-commander';
import { AdminError } from '../common/errors/admin-error';
import { CLI_OUTPUT, CliOutput } from './cli-output';

/** Base of every admin command: the shared `--json` flag and the output contract. */
export abstract class AdminCommand extends CommandRunner {
  @Inject(CLI_OUTPUT) protected readonly output: CliOutput;

  @Option({ flags: '--json', description: 'print one JSON object on stdout' })
  parseJson(): boolean {
    return true;
  }

  async run(params: string[], options: Record<string, unknown>): Promise<void> {
    try {
      await this.execute(params, options);
    } catch (error) {
      this.output.failure(error);
    }
  }

  protected abstract execute(params: string[], options: Record<string, unknown>): Promise<void>;
}

export function requireOption(options: Record<string, unknown>, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '')
    throw new AdminError('INVALID_ARGUMENTS', `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is required`);
  return value.trim();
}
