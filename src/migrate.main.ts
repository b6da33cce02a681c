import 'reflect-metadata';
import { ConfigError, loadConfig } from './config/app-config';
import { prepareRuntime } from './runtime';
import { migrate } from './database/migrate';

/** `npm run migration:run`: migrations and API-role grants, as the schema owner. */
async function main(): Promise<void> {
  const runtime = await prepareRuntime(loadConfig());
  try {
    const applied = await migrate(runtime.urls);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
  } finally {
    if (runtime.embedded?.owned) await runtime.embedded.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `migration failed: ${(error as Error).message}`}\n`);
  process.exit(1);
});
