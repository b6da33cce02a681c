import { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { ApiError, ConversationApi, verifyWebhook } from '../../sdk/src/index';
import { DATA_SCOPES, Scope } from '../../src/contract/scopes';
import { createClient } from '../support/credentials';
import { createCompany } from '../support/factories';
import { createTestApp, eventually, ownerDataSource } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { WORKER_ENV } from '../support/webhooks-in-process';

/**
 * Issue #50 through the SDK: an integrator holding `webhooks.manage` registers an endpoint with
 * `api.webhookEndpoints.create` (pointed at a local receiver: the app allows private destinations,
 * its webhook worker in process), sends a test event, sees it arrive signed with the secret the
 * create returned (checked with the SDK's `verifyWebhook`), reads the delivery back, deletes the
 * endpoint (404 after), and finds its calls in the access log with `api.auditEvents.list`. The
 * routes' own rules: test/e2e/webhook-endpoints.e2e-spec.ts.
 */
const WAIT_MS = 30_000;

describe('SDK: api.webhookEndpoints and api.auditEvents against the service', () => {
  let db: DataSource;
  let app: NestExpressApplication;
  let base: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    db = await ownerDataSource();
    app = await createTestApp({ env: WORKER_ENV });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    receiver = await WebhookReceiver.start();
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
    await app?.close();
    await db?.destroy();
  });

  it('create, test (received and verified with the returned secret), deliveries, get, update, delete; the calls in the audit log', async () => {
    const company = await createCompany(db);
    const client = await createClient(db, company, { scopes: [...DATA_SCOPES, 'webhooks.manage', 'audit.read'] as Scope[] });
    const api = new ConversationApi({ baseUrl: base, clientId: client.clientId, clientSecret: client.clientSecret });

    const created = await api.webhookEndpoints.create(
      { url: receiver.url, types: ['meeting', 'call'], description: 'SDK e2e' },
      { idempotencyKey: `sdk-e2e-${company.publicId}` },
    );
    expect(created).toMatchObject({ object: 'webhook_endpoint', url: receiver.url, types: ['meeting', 'call'], state: 'enabled' });
    expect(created.secret).toMatch(/^whsec_/);
    // The same key and body: the first answer again (same endpoint, same secret), not a second endpoint.
    const again = await api.webhookEndpoints.create(
      { url: receiver.url, types: ['meeting', 'call'], description: 'SDK e2e' },
      { idempotencyKey: `sdk-e2e-${company.publicId}` },
    );
    expect(again).toEqual(created);
    const { secret, ...endpoint } = created;
    expect(await api.webhookEndpoints.list().toArray()).toEqual([endpoint]);
    expect(await api.webhookEndpoints.get(created.id)).toEqual(endpoint);

    const { delivery_id } = await api.webhookEndpoints.test(created.id);
    await eventually(async () => receiver.received.some((r) => JSON.parse(r.body).data?.endpoint_id === created.id), WAIT_MS);
    const got = receiver.received.find((r) => JSON.parse(r.body).data?.endpoint_id === created.id)!;
    const headers = { 'webhook-id': got.id, 'webhook-timestamp': got.timestamp, 'webhook-signature': got.signature };
    const event = verifyWebhook(headers, got.body, secret) as unknown as { type: string; data: { endpoint_id: string } };
    expect(event).toMatchObject({ type: 'webhook.test', data: { endpoint_id: created.id } });
    expect(() => verifyWebhook(headers, got.body, 'whsec_' + Buffer.from('another secret, 32 bytes long!!!').toString('base64'))).toThrow();

    await eventually(async () => (await api.webhookEndpoints.deliveries(created.id).toArray())[0]?.state === 'delivered', WAIT_MS);
    const deliveries = await api.webhookEndpoints.deliveries(created.id, { state: 'delivered' }).toArray();
    expect(deliveries).toEqual([
      expect.objectContaining({
        object: 'webhook_delivery',
        id: delivery_id,
        event_id: got.id,
        type: 'webhook.test',
        last_response_status: 200,
      }),
    ]);

    const paused = await api.webhookEndpoints.update(created.id, { enabled: false });
    expect(paused).toMatchObject({ id: created.id, enabled: false, state: 'disabled' });
    await expect(api.webhookEndpoints.rotateSecret(created.id)).resolves.toMatchObject({ secret: expect.stringMatching(/^whsec_/) });
    await expect(api.webhookEndpoints.rotateSecret(created.id)).rejects.toMatchObject({ status: 409, code: 'ROTATION_IN_PROGRESS' });
    await expect(api.webhookEndpoints.create({ url: 'ftp://example.com/' })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_WEBHOOK_URL',
    });

    await expect(api.webhookEndpoints.delete(created.id)).resolves.toBeUndefined();
    const gone = await api.webhookEndpoints.get(created.id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(ApiError);
    expect(gone).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND' });
    expect(await api.webhookEndpoints.list().toArray()).toEqual([]);

    // The access log names the endpoint on each of its successful calls, newest first (the 404 after names none).
    const trail = await api.auditEvents.list({ resource_id: created.id, limit: 5 }).toArray();
    expect(trail.length).toBeGreaterThanOrEqual(5);
    expect(trail[0]).toMatchObject({
      object: 'audit_event',
      method: 'DELETE',
      route: 'DELETE /v1/webhook-endpoints/{endpoint_id}',
      status: 204,
    });
    const deletes = await api.auditEvents.list({ route: 'DELETE /v1/webhook-endpoints/{endpoint_id}', status: '204' }).toArray();
    expect(deletes.map((e) => e.resource_ids)).toEqual([[created.id]]);
  }, 90_000);
});
