import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppConfig, ConfigError } from './config/app-config';
import { DatabaseUrls } from './config/database-urls';
import { PEM_BLOCK } from './config/environment-rules';
import { RuntimeSecrets } from './config/runtime-secrets';
import { EmbeddedDatabase, startEmbeddedPostgres } from './database/embedded-postgres';

export interface Runtime {
  config: AppConfig;
  urls: DatabaseUrls;
  secrets: RuntimeSecrets;
  embedded?: EmbeddedDatabase;
}

/**
 * Resolves what the configuration leaves open: starts or attaches to the embedded
 * PostgreSQL when DATABASE_URL is unset, and loads or generates development secrets.
 */
export async function prepareRuntime(config: AppConfig, log: (line: string) => void = () => undefined): Promise<Runtime> {
  let embedded: EmbeddedDatabase | undefined;
  let urls: DatabaseUrls;
  if (config.database.url) {
    const { url, migrationUrl, auditUrl, auditMigrationUrl } = config.database;
    urls = new DatabaseUrls(url, migrationUrl!, auditUrl!, auditMigrationUrl);
  } else {
    embedded = await startEmbeddedPostgres(config.dataDir, { log });
    urls = new DatabaseUrls(embedded.apiUrl, embedded.ownerUrl, embedded.apiUrl);
  }
  try {
    return { config, urls, secrets: await loadSecrets(config), embedded };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}

async function loadSecrets(config: AppConfig): Promise<RuntimeSecrets> {
  const cursorSecret =
    config.cursorSecret ?? (await developmentSecret(config, 'cursor-secret', () => randomBytes(32).toString('base64url')));
  const jwtPrivateKey =
    config.jwt.privateKey ??
    (await developmentSecret(config, 'jwt-private-key.pem', () =>
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    ));
  const jwtPublicKeys = (config.jwt.publicKeys ?? '').match(PEM_BLOCK) ?? [];
  const webhookSecretKey =
    config.webhooks.secretKey ??
    (config.production ? undefined : await developmentSecret(config, 'webhook-secret-key', () => randomBytes(32).toString('base64url')));
  return new RuntimeSecrets(cursorSecret, jwtPrivateKey, jwtPublicKeys, webhookSecretKey);
}

async function developmentSecret(config: AppConfig, file: string, generate: () => string): Promise<string> {
  if (config.production) throw new ConfigError(`Invalid configuration: ${file} may only be generated outside production`);
  const path = join(config.dataDir, file);
  if (existsSync(path)) return (await readFile(path, 'utf8')).trim();
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const value = generate();
  await writeFile(path, value, { mode: 0o600, flag: 'wx' }).catch(async (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
  return (await readFile(path, 'utf8')).trim();
}
