import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NestExpressApplication } from '@nestjs/platform-express';
import { accessToken, Demo, servedDemo } from '../support/full-read';

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** A strict TypeScript program as an integrator writes it, against the package's public types only. */
const PROGRAM = `
import {
  ApiError,
  ConversationApi,
  MemoryStore,
  verifyWebhook,
  type AuditEvent,
  type CreatedWebhookEndpoint,
  type DeliveryQueued,
  type Meeting,
  type ReplayQueued,
  type RotatedSecret,
  type SyncResult,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '@conversation-read-api/sdk';

const api = new ConversationApi({ baseUrl: process.env.BASE_URL!, clientId: process.env.CLIENT_ID!, clientSecret: process.env.CLIENT_SECRET! });
const titles: string[] = [];
for await (const meeting of api.meetings.list({ limit: 7, audience: 'external' })) titles.push(meeting.title);
const [firstId] = (await api.meetings.list({ limit: 1 }).firstPage()).data.map((m) => m.id);
const meeting: Meeting = await api.meetings.get(firstId!, { include: ['evaluation', 'transcript'] });
const store = new MemoryStore();
const result: SyncResult = await api.sync(store);
// Run before the 404 below (whose rate-limit state is checked): the routes answer the demo's client 403 (it holds neither webhooks.manage nor audit.read).
const scopeErrors: string[] = [];
for (const call of [() => api.webhookEndpoints.list().firstPage(), () => api.auditEvents.list().firstPage()])
  await call().catch((error: unknown) => scopeErrors.push(error instanceof ApiError ? \`\${error.status} \${error.code}\` : String(error)));
let notFound: string | null = null;
try {
  await api.calls.get('call_0000000000000000000000');
} catch (error) {
  if (error instanceof ApiError) notFound = \`\${error.status} \${error.code}\`;
}
// @ts-expect-error: a limit is a number (the types are the OpenAPI document's, not any)
api.meetings.list({ limit: 'seven' });
// @ts-expect-error: meetings have no 'messages' part
api.meetings.list({ include: ['messages'] });
// @ts-expect-error: the feed's types are the six object types
api.changes.list({ types: ['meetings'] });
/** Every webhook-endpoint method, compiled strict (the demo's client lacks webhooks.manage: not run). */
async function manage(api: ConversationApi): Promise<void> {
  const created: CreatedWebhookEndpoint = await api.webhookEndpoints.create({ url: 'https://hooks.example.com/in', types: ['meeting'], description: null });
  const secret: string = created.secret;
  await api.webhookEndpoints.create({ url: 'https://hooks.example.com/in' }, { idempotencyKey: 'k', timeout: 5_000 });
  const all: WebhookEndpoint[] = await api.webhookEndpoints.list({ limit: 10 }).toArray();
  const one: WebhookEndpoint = await api.webhookEndpoints.get(created.id);
  const paused: WebhookEndpoint = await api.webhookEndpoints.update(one.id, { enabled: false, url: 'https://b.example.com', types: ['call'] });
  const rotated: RotatedSecret = await api.webhookEndpoints.rotateSecret(paused.id);
  const failed: WebhookDelivery[] = [];
  for await (const delivery of api.webhookEndpoints.deliveries(created.id, { state: 'failed', limit: 5 })) failed.push(delivery);
  const retried: DeliveryQueued = await api.webhookEndpoints.retry(created.id, failed[0]!.id);
  const tested: DeliveryQueued = await api.webhookEndpoints.test(created.id);
  const replayed: ReplayQueued = await api.webhookEndpoints.replay(created.id, { from: '2026-11-23T00:00:00Z' });
  const deleted: void = await api.webhookEndpoints.delete(created.id);
  const events: AuditEvent[] = await api.auditEvents.list({ resource_id: created.id, status: '4xx', occurred_after: '2026-11-01T00:00:00Z' }).toArray();
  // @ts-expect-error: the secret is shown by create only, never on an endpoint read back
  one.secret;
  // @ts-expect-error: a URL is required
  api.webhookEndpoints.create({ types: ['meeting'] });
  // @ts-expect-error: the feed's types are the six object types
  api.webhookEndpoints.create({ url: 'https://a.example.com', types: ['meetings'] });
  // @ts-expect-error: a delivery's state is pending, delivered or failed
  api.webhookEndpoints.deliveries(created.id, { state: 'lost' });
  // @ts-expect-error: a replay needs its from
  api.webhookEndpoints.replay(created.id, {});
  // @ts-expect-error: the audit log has no such filter
  api.auditEvents.list({ meeting_id: 'mtg_1' });
  console.log(secret, all, rotated.previous_secret_expires_at, retried.delivery_id, tested.delivery_id, replayed.queued, deleted, events[0]?.route);
}
void manage;
let refused = false;
try {
  verifyWebhook({ 'webhook-id': 'x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' }, '{}', 'whsec_' + Buffer.from('k').toString('base64'));
} catch {
  refused = true;
}
console.log(JSON.stringify({ titles, included: Object.keys(meeting.included ?? {}).sort(), objects: store.objects.size, exported: result.exported, notFound, refused, scopeErrors, remaining: api.rateLimit?.policies.length }));
`;

/**
 * The package as an integrator gets it: packed (`npm pack`, which builds it), installed into a fresh
 * directory, used by a strict TypeScript program (compiled against the published declarations,
 * with type errors that must stay errors) and by CommonJS, both run against the service.
 */
describe('the SDK as a consumer installs it', () => {
  let app: NestExpressApplication;
  let base: string;
  let demo: Demo;
  let dir: string;

  beforeAll(async () => {
    ({ app, base, demo } = await servedDemo());
    dir = await mkdtemp(join(tmpdir(), 'sdk-consumer-'));
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('npm pack, npm install into a fresh directory, a strict TypeScript program compiles and runs, and require() works', async () => {
    // Packed from a copy of sdk/ (its prepack builds it), so sdk/dist, which the examples run from, is never rebuilt under them.
    const source = join(dir, 'sdk');
    await cp(join(ROOT, 'sdk'), source, { recursive: true, filter: (path) => !/\/sdk\/(dist|node_modules)(\/|$)|\.tgz$/.test(path) });
    await symlink(join(ROOT, 'node_modules'), join(source, 'node_modules'));
    const npm = { cwd: source, env: { ...process.env, npm_config_loglevel: 'error' }, maxBuffer: 16 << 20 };
    const { stdout } = await run('npm', ['pack', '--pack-destination', dir, '--json'], npm);
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed!.files.map((f) => f.path);
    expect(packed!.filename).toMatch(/^conversation-read-api-sdk-\d+\.\d+\.\d+\.tgz$/);
    expect(files).toEqual(expect.arrayContaining(['dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/package.json', 'openapi.json']));
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/'))).toBe(false);

    const app_ = join(dir, 'app');
    await run('mkdir', ['-p', app_]);
    await writeFile(join(app_, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, packed!.filename)], { ...npm, cwd: app_ });
    await writeFile(join(app_, 'program.ts'), PROGRAM);
    await writeFile(
      join(app_, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          typeRoots: [join(ROOT, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['program.ts'],
      }),
    );
    await run(process.execPath, [TSC, '-p', app_], { cwd: app_ }).catch((error: { stdout: string }) => {
      throw new Error(`the consumer program does not compile:\n${error.stdout}`);
    });

    const env = { PATH: process.env.PATH, BASE_URL: base, CLIENT_ID: demo.client_id, CLIENT_SECRET: demo.client_secret };
    const out = JSON.parse((await run(process.execPath, [join(app_, 'program.js')], { cwd: app_, env })).stdout.trim()) as {
      titles: string[];
      included: string[];
      objects: number;
      exported: number;
      notFound: string;
      refused: boolean;
      scopeErrors: string[];
      remaining: number;
    };
    const token = await accessToken(base, demo.client_id, demo.client_secret);
    const external = (await (await fetch(`${base}/v1/meetings?audience=external&limit=100`, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
      data: Array<{ title: string }>;
    };
    expect(out.titles).toEqual(external.data.map((m) => m.title));
    expect(out).toMatchObject({ included: ['evaluation', 'transcript'], notFound: '404 RESOURCE_NOT_FOUND', refused: true, remaining: 2 });
    expect(out.scopeErrors).toEqual(['403 INSUFFICIENT_SCOPE', '403 INSUFFICIENT_SCOPE']);
    expect(out.exported).toBeGreaterThan(50);
    expect(out.objects).toBeGreaterThan(out.exported);

    // CommonJS: require() gets the CJS build, which works the same.
    const cjs = `const { ConversationApi } = require('@conversation-read-api/sdk');
      new ConversationApi({ baseUrl: process.env.BASE_URL, clientId: process.env.CLIENT_ID, clientSecret: process.env.CLIENT_SECRET })
        .context().then((c) => console.log(c.company.id));`;
    expect((await run(process.execPath, ['-e', cjs], { cwd: app_, env })).stdout.trim()).toBe(demo.company_id);
  });
});
