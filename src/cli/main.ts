import 'reflect-metadata';
import { CommandFactory, CommandRunnerService } from 'nest-commander';
import { loadConfig } from '../config/app-config';
import { Runtime, prepareRuntime } from '../runtime';
import { migrate } from '../database/migrate';
import { AdminError } from '../common/errors/admin-error';
import { CliOutput } from './cli-output';
import { CliModule } from './cli.module';

/**
 * `npm run cli -- <command> [options]`. Same configuration as the server; with the embedded
 * database it attaches to the cluster a running server started, or starts it for the command.
 */
async function main(): Promise<void> {
  const output = new CliOutput(process.argv.includes('--json'));
  let runtime: Runtime | undefined;
  try {
    runtime = await prepareRuntime(loadConfig());
    if (runtime.embedded) await migrate(runtime.urls);
    // Commander's own error lines are replaced by ours (which honour --json); help still prints.
    const outputConfiguration = { writeErr: () => undefined };
    const errorHandler = (error: Error) => {
      if (['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(commanderCode(error))) return;
      output.failure(new AdminError('INVALID_ARGUMENTS', error.message.replace(/^error: /, '')));
      throw error;
    };
    const app = await CommandFactory.createWithoutRunning(CliModule.forRoot(runtime, output), {
      logger: false,
      abortOnError: false,
      outputConfiguration,
      errorHandler,
      serviceErrorHandler: (error) => {
        if (!commanderCode(error)) output.failure(error);
      },
    });
    // nest-commander sets these on the root program only; a subcommand's own parse errors
    // (an unknown option) would otherwise exit without honouring --json.
    const program = (app.get(CommandRunnerService) as unknown as { commander: Program }).commander;
    for (const sub of program.commands) sub.exitOverride(errorHandler).configureOutput(outputConfiguration);
    await CommandFactory.runApplication(app);
    await app.close();
  } catch (error) {
    output.failure(error);
  } finally {
    if (runtime?.embedded?.owned) await runtime.embedded.stop();
  }
}

/** The slice of commander's Command used here (nest-commander bundles its own copy). */
interface Program {
  commands: Array<{ exitOverride(handler: (e: Error) => void): { configureOutput(o: object): void } }>;
}

/** `commander.*` code of an argument error (already reported), '' for anything else. */
function commanderCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('commander.') ? code : '';
}

void main().then(() => process.exit(process.exitCode ?? 0));
