import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ChangeObject } from '../../src/changes/change.vocabulary';
import { ALL_SCOPES } from '../../src/contract/scopes';
import { WebhookAdmin } from '../../src/webhooks/webhook-admin';
import { runCli } from './cli';
import { createTenant, Tenant } from './tenant';
import { CursorCodec } from '../../src/common/cursors/cursor-codec';
import { loadConfig } from '../../src/config/app-config';
import { DatabaseUrls } from '../../src/config/database-urls';
import { RuntimeSecrets } from '../../src/config/runtime-secrets';
import { OwnerPool } from '../../src/database/owner-pool';
import { Metrics } from '../../src/metrics/metrics';
import { IdempotencyKeys } from '../../src/webhooks/idempotency-keys';
import { WebhookDeliveries } from '../../src/webhooks/webhook-deliveries.repository';
import { WebhookEndpoints } from '../../src/webhooks/webhook-endpoints.repository';
import { SigningKeys } from '../../src/webhooks/webhook-secrets';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { assertTestDatabase, createTestApp, ownerDataSource, TEST_CURSOR_SECRET, TEST_WEBHOOK_SECRET_KEY } from './test-app';
import { WebhookReceiver } from './webhook-receiver';

/** A compressed retry schedule (1, 2 and 4 seconds, ±20%): three retries, then the delivery gives up. */
export const SCHEDULE = [1, 2, 4];
export const WORKER_ENV = {
  WORKER: '1',
  WEBHOOK_ALLOW_PRIVATE: '1',
  WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(','),
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_EXPIRE_SECONDS: '5',
};
/** The admin's CLI beside it: the same cursor secret (to open an event's cursor). */
export const CLI_ENV = { WEBHOOK_ALLOW_PRIVATE: '1', CURSOR_SECRET: TEST_CURSOR_SECRET };

export interface Endpoint {
  endpoint_id: string;
  company_id: string;
  url: string;
  types: string[] | null;
  state: string;
  secret: string;
}

/**
 * For the enclosing describe: the API with its webhook worker in process (`WORKER_ENV`), the
 * schema owner's connection, receivers closed afterwards, and the admin's ways to manage
 * endpoints: the CLI as a process, or the service the CLI runs, in this process (a CLI process
 * takes a second to start). Read `db`, `app` and `http` inside tests.
 */
export function webhooksInProcess() {
  let db: DataSource;
  let app: NestExpressApplication;
  let http: ReturnType<typeof request>;
  let admin: WebhookAdmin;
  let adminPool: OwnerPool;
  const receivers: WebhookReceiver[] = [];

  const start = async () => {
    app = await createTestApp({ env: WORKER_ENV });
    http = request(app.getHttpServer());
  };

  beforeAll(async () => {
    db = await ownerDataSource();
    await start();
    // The admin service as the CLI builds it (the schema owner's connections), without its process.
    const api = assertTestDatabase(process.env.TEST_DATABASE_URL);
    const config = loadConfig({ NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE: '1' });
    adminPool = new OwnerPool(
      new DatabaseUrls(api, assertTestDatabase(process.env.TEST_MIGRATION_DATABASE_URL), api),
      config,
      new Metrics(false),
    );
    const endpoints = new WebhookEndpoints(adminPool);
    const keys = new SigningKeys(new RuntimeSecrets(TEST_CURSOR_SECRET, '', [], TEST_WEBHOOK_SECRET_KEY));
    const service = new WebhooksService(
      endpoints,
      new WebhookDeliveries(adminPool),
      new CursorCodec(TEST_CURSOR_SECRET),
      config,
      keys,
      new IdempotencyKeys(keys),
    );
    // No tenant transaction or feed: replays, which read the feed, these tests run through the CLI.
    admin = new WebhookAdmin(service, endpoints, adminPool, undefined as never, undefined as never);
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await adminPool?.onApplicationShutdown();
    await app?.close();
    await db?.destroy();
  });

  async function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
    const out = await runCli({ ...CLI_ENV, ...env }, ...args, '--json');
    return { code: out.code, json: JSON.parse(out.stdout) };
  }

  return {
    get db() {
      return db;
    },
    get app() {
      return app;
    },
    get http() {
      return http;
    },
    /** A new app with the worker, after a test closed `app` to run one of its own. */
    restart: start,
    tenant: (): Promise<Tenant> => createTenant(db, http, [...ALL_SCOPES]),
    receiver: async () => {
      const r = await WebhookReceiver.start();
      receivers.push(r);
      return r;
    },
    cli,
    /** Through the admin CLI, as an admin would (its output checked). */
    addEndpointByCli: async (t: Tenant, url: string, ...extra: string[]): Promise<Endpoint> => {
      const out = await cli({}, 'webhooks:add', '--company', t.company.publicId, '--url', url, ...extra);
      expect(out).toMatchObject({ code: 0 });
      return out.json as unknown as Endpoint;
    },
    /** Through the service the CLI runs, as the schema owner, in this process. */
    addEndpoint: (t: Tenant, url: string, types?: ChangeObject[]): Promise<Endpoint> =>
      admin.add({ company: t.company.publicId, url, types }) as Promise<Endpoint>,
    deliveriesOf: (endpoint: Endpoint) => admin.deliveries(endpoint.endpoint_id, 50),
    endpointsOf: (t: Tenant) => admin.list(t.company.publicId),
  };
}
