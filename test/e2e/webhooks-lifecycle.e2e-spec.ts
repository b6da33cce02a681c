import { spawn } from 'node:child_process';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import request from 'supertest';
import { ALL_SCOPES, Scope } from '../../src/contract/scopes';
import { freePort } from '../../src/database/embedded-postgres';
import { refusedAddress } from '../../src/webhooks/webhook-destination';
import { WebhookDeliveries } from '../../src/webhooks/webhook-deliveries.repository';
import { readJournal } from '../support/sync-journal';
import { createClient } from '../support/credentials';
import { createTenant } from '../support/tenant';
import { createTestApp, eventually, sleep } from '../support/test-app';
import { Received, WebhookReceiver } from '../support/webhook-receiver';
import { WORKER_ENV, webhooksInProcess } from '../support/webhooks-in-process';
import { ConversationApi, WebhookVerificationError, verifyWebhook } from '../../sdk/src/index';

const ALL: Scope[] = [...ALL_SCOPES];
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

describe('webhooks: a worker in the API process: secrets, receivers, destinations, removal, retention', () => {
  const w = webhooksInProcess();
  const { tenant, receiver, cli, addEndpointByCli, addEndpoint, deliveriesOf, endpointsOf } = w;

  it('signs with both secrets during a rotation, then with the new one only [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    const endpoint = await addEndpoint(t, rx.url);
    const rotated = await cli({}, 'webhooks:rotate-secret', '--endpoint', endpoint.endpoint_id);
    await t.people.recording('meeting', { owner: t.seller });
    expect(rotated.json).toEqual({
      endpoint_id: endpoint.endpoint_id,
      company_id: t.company.publicId,
      secret: expect.stringMatching(/^whsec_/),
      previous_secret_expires_at: expect.stringMatching(/Z$/),
    });
    const overlap = Date.parse(rotated.json.previous_secret_expires_at as string) - Date.now();
    expect(overlap).toBeGreaterThan(23 * 3600_000); // WEBHOOK_SECRET_OVERLAP's default, 24 h
    const secret = rotated.json.secret as string;
    await eventually(async () => rx.received.length === 1, 30_000);
    const during = rx.received[0];
    expect(during.signature.split(' ')).toHaveLength(2);
    expect(WebhookReceiver.verifies(endpoint.secret, during)).toBe(true);
    expect(WebhookReceiver.verifies(secret, during)).toBe(true);
    // The SDK's verifyWebhook on the real delivery: either secret, or both as a receiver holds them during a rotation.
    const headersOf = (r: Received) => ({ 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature });
    expect(verifyWebhook(headersOf(during), during.body, endpoint.secret)).toEqual(during.event);
    expect(verifyWebhook(new Headers(headersOf(during)), Buffer.from(during.body), [secret, endpoint.secret])).toEqual(during.event);
    expect(() => verifyWebhook(headersOf(during), during.body.replace('}', ' }'), [secret, endpoint.secret])).toThrow(
      WebhookVerificationError,
    );
    const twice = await cli({}, 'webhooks:rotate-secret', '--endpoint', endpoint.endpoint_id);
    expect(twice).toMatchObject({ code: 1, json: { error: { code: 'ROTATION_IN_PROGRESS' } } });

    // The overlap ended (early, as after a leak): the new secret only.
    const ended = await cli({}, 'webhooks:expire-previous-secret', '--endpoint', endpoint.endpoint_id);
    expect(ended.json).toEqual({ endpoint_id: endpoint.endpoint_id, company_id: t.company.publicId, expired: true });
    await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.length === 2, 30_000);
    const afterwards = rx.received[1];
    expect(afterwards.signature.split(' ')).toHaveLength(1);
    expect(WebhookReceiver.verifies(secret, afterwards)).toBe(true);
    expect(WebhookReceiver.verifies(endpoint.secret, afterwards)).toBe(false);
    expect(() => verifyWebhook(headersOf(afterwards), afterwards.body, endpoint.secret)).toThrow(WebhookVerificationError);
    expect(verifyWebhook(headersOf(afterwards), afterwards.body, [endpoint.secret, secret]).data).toEqual(afterwards.event.data);
    const again = await cli({}, 'webhooks:expire-previous-secret', '--endpoint', endpoint.endpoint_id);
    expect(again.json).toMatchObject({ expired: false });
  });

  it('examples/webhook-receiver.mjs verifies events and keeps a copy through the feed [waits]', async () => {
    await w.app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(w.app.getHttpServer().address() as AddressInfo).port}`;
    const t = await tenant();
    const client = await createClient(w.db, t.company, { scopes: ALL });
    const state = join(process.env.TEST_ROOT!, `receiver-copy-${process.pid}.json`);
    // The endpoint first (its secret is the receiver's), on a port the example then listens on.
    const port = await freePort();
    const endpoint = await addEndpoint(t, `http://127.0.0.1:${port}/hooks`);
    const example = spawn(
      process.execPath,
      [join(__dirname, '../../examples/webhook-receiver.mjs'), '--port', String(port), '--state', state],
      {
        env: {
          PATH: process.env.PATH,
          WEBHOOK_SECRET: endpoint.secret,
          BASE_URL: base,
          CLIENT_ID: client.clientId,
          CLIENT_SECRET: client.clientSecret,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    example.stdout!.on('data', (d) => (output += d));
    example.stderr!.on('data', (d) => (output += d));
    try {
      await eventually(async () => output.includes('"listening"'), 30_000);
      const meeting = await t.people.recording('meeting', { owner: t.seller });
      const chat = await t.conversations.chat({ seller: t.seller, messages: [{ sentAt: daysAgo(1) }] });
      const copied = async () => (await readJournal(state).catch(() => ({ objects: {} }))).objects;
      await eventually(async () => {
        const objects = await copied();
        return `meeting:${meeting.publicId}` in objects && `chat:${chat.publicId}` in objects;
      }, 60_000);
      // Events verified by the example (no refusal), each one logged (the journal takes the copy's
      // lines as they come, before the run that wrote them logs its event).
      await eventually(async () => output.includes(`"object_id":"${meeting.publicId}"`), 30_000).catch(() => undefined);
      expect(output).not.toContain('refused');
      expect(output).toContain(`"object_id":"${meeting.publicId}"`);
    } finally {
      example.kill('SIGTERM');
    }
  });

  it('examples/webhook-receiver.mjs --register registers itself through the API once, verifies with the returned secret, and a restart reuses it', async () => {
    if (!w.app.getHttpServer().listening) await w.app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(w.app.getHttpServer().address() as AddressInfo).port}`;
    const t = await tenant();
    const client = await createClient(w.db, t.company, { scopes: ALL });
    const api = new ConversationApi({ baseUrl: base, clientId: client.clientId, clientSecret: client.clientSecret });
    const state = join(process.env.TEST_ROOT!, `receiver-register-${process.pid}.json`);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks`;
    const start = () => {
      const example = spawn(
        process.execPath,
        [join(__dirname, '../../examples/webhook-receiver.mjs'), '--port', String(port), '--state', state, '--register', url],
        {
          env: { PATH: process.env.PATH, BASE_URL: base, CLIENT_ID: client.clientId, CLIENT_SECRET: client.clientSecret },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const run = { example, output: '' };
      example.stdout!.on('data', (d) => (run.output += d));
      example.stderr!.on('data', (d) => (run.output += d));
      return run;
    };
    const stop = (run: ReturnType<typeof start>) =>
      new Promise<void>((resolve) => {
        if (run.example.exitCode !== null) return resolve();
        run.example.once('exit', () => resolve());
        run.example.kill('SIGTERM');
      });
    const waitFor = (run: ReturnType<typeof start>, text: string) =>
      eventually(async () => run.output.includes(text), 30_000).catch(() => {
        throw new Error(`the example did not print ${text}:\n${run.output}`);
      });
    const lines = (output: string) =>
      output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);

    const first = start();
    try {
      await waitFor(first, '"listening"');
      const [registered] = lines(first.output).filter((l) => l.registered);
      expect(registered).toMatchObject({ registered: expect.stringMatching(/^whe_/), url, how: 'created' });
      const endpoints = await api.webhookEndpoints.list().toArray();
      expect(endpoints.map((e) => [e.id, e.url])).toEqual([[registered!.registered, url]]);
      await api.webhookEndpoints.test(endpoints[0]!.id);
      await waitFor(first, '"webhook.test"');
      expect(lines(first.output)).toContainEqual({ event: 'webhook.test', endpoint_id: endpoints[0]!.id, verified: true });
      expect(first.output).not.toContain('refused');
    } finally {
      await stop(first);
    }

    // Restarted: the same endpoint, its saved secret; nothing registered again.
    const second = start();
    try {
      await waitFor(second, '"listening"');
      const [registered] = lines(second.output).filter((l) => l.registered);
      expect(registered).toMatchObject({ how: 'reused' });
      expect((await api.webhookEndpoints.list().toArray()).map((e) => e.id)).toEqual([registered!.registered]);
      const { delivery_id } = await api.webhookEndpoints.test(registered!.registered as string);
      await waitFor(second, '"webhook.test"');
      expect(second.output).not.toContain('refused');
      expect(delivery_id).toMatch(/^whd_/);
    } finally {
      await stop(second);
    }
  });

  describe('refused destinations', () => {
    const strict = { WEBHOOK_ALLOW_PRIVATE: '0' };

    it.each([
      ['http://127.0.0.1:9/hooks', 'https only'],
      ['https://169.254.169.254/latest/meta-data', 'link-local (the cloud metadata address)'],
      ['https://10.1.2.3/hooks', 'private'],
      ['https://[::1]/hooks', 'IPv6 loopback'],
    ])('webhooks:add refuses %s (%s; every other form: the transport unit spec)', async (url) => {
      const t = await tenant();
      const out = await cli(strict, 'webhooks:add', '--company', t.company.publicId, '--url', url);
      expect(out).toMatchObject({ code: 1, json: { error: { code: 'WEBHOOK_URL_REFUSED' } } });
      expect(await endpointsOf(t)).toEqual([]);
    });

    /** This machine's own name, when it resolves to non-public addresses only (it does on these machines: /etc/hosts). */
    async function privateName(): Promise<string | null> {
      const name = hostname();
      const addresses = await lookup(name, { all: true }).catch(() => []);
      if (addresses.length && addresses.every((a) => refusedAddress(a.address))) return name;
      console.warn(
        `SKIPPED: ${name} does not resolve to private addresses only here (${JSON.stringify(addresses)}); the transport's medium spec covers this with a fake resolver`,
      );
      return null;
    }

    it('webhooks:add refuses a name that resolves to a private address', async () => {
      const name = await privateName();
      if (!name) return;
      const t = await tenant();
      const out = await cli(strict, 'webhooks:add', '--company', t.company.publicId, '--url', `https://${name}/hooks`);
      expect(out).toMatchObject({
        code: 1,
        json: { error: { code: 'WEBHOOK_URL_REFUSED', message: expect.stringContaining('resolves to') } },
      });
    });

    it('the worker checks the address after resolving the name, before connecting: a name that resolves to loopback is never called [waits]', async () => {
      const name = await privateName();
      if (!name) return;
      await w.app.close(); // one worker only: a strict one
      const strictApp = await createTestApp({ env: { ...WORKER_ENV, WEBHOOK_ALLOW_PRIVATE: '0' } });
      try {
        const t = await createTenant(w.db, request(strictApp.getHttpServer()), ALL);
        const rx = await receiver();
        // Registered while private destinations were allowed (as if the name pointed elsewhere then).
        const endpoint = await addEndpointByCli(t, `https://${name}:${new URL(rx.url).port}/hooks`);
        await t.people.recording('meeting', { owner: t.seller });
        let row: Record<string, unknown> | undefined;
        await eventually(async () => {
          [row] = (await deliveriesOf(endpoint)) as unknown as Array<Record<string, unknown>>;
          return typeof row?.last_error === 'string';
        }, 30_000);
        expect(row).toMatchObject({ last_status: null });
        expect(row!.attempts).toBeGreaterThanOrEqual(1); // and retried on the schedule meanwhile, refused each time
        expect(row!.last_error).toMatch(/^refused destination: .*127\.0\.0\.1/);
        expect(rx.received).toEqual([]);
      } finally {
        await strictApp.close();
        await w.restart();
      }
    });

    it('a redirect is not followed, and counts as a failure [waits]', async () => {
      const t = await tenant();
      const [rx, target] = [await receiver(), await receiver()];
      rx.answer = () => ({ status: 302, location: target.url });
      const endpoint = await addEndpoint(t, rx.url);
      await t.people.recording('meeting', { owner: t.seller });
      await eventually(async () => rx.received.length >= 2, 30_000);
      expect(target.received).toEqual([]);
      const [row] = await deliveriesOf(endpoint);
      expect(row).toMatchObject({ last_status: 302, last_error: expect.stringContaining('redirect') });
      expect(['pending', 'failed']).toContain(row.status); // retried on the schedule, or given up by now
    });
  });

  it('removing an endpoint stops its deliveries, retries included; unknown ids are refused [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    rx.answer = () => ({ status: 500 }); // every attempt fails: a retry is due after about a second
    const endpoint = await addEndpoint(t, rx.url);
    await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.length >= 1, 30_000);
    const removed = await cli({}, 'webhooks:remove', '--endpoint', endpoint.endpoint_id);
    expect(removed.json).toEqual({ endpoint_id: endpoint.endpoint_id, company_id: t.company.publicId, removed: true });
    const sent = rx.received.length;
    await t.people.recording('meeting', { owner: t.seller });
    await sleep(4000); // past the retries that were due
    expect(rx.received).toHaveLength(sent);
    for (const command of ['webhooks:remove', 'webhooks:deliveries', 'webhooks:rotate-secret']) {
      const out = await cli({}, command, '--endpoint', endpoint.endpoint_id);
      expect(out).toMatchObject({ code: 1, json: { error: { code: 'WEBHOOK_ENDPOINT_NOT_FOUND' } } });
    }
    const noTypes = await cli({}, 'webhooks:add', '--company', t.company.publicId, '--url', rx.url, '--types', 'meeting,recording');
    expect(noTypes).toMatchObject({ code: 1, json: { error: { code: 'INVALID_ARGUMENTS' } } });
  });

  it('keeps delivery records for WEBHOOK_RETENTION_DAYS, then deletes them [waits]', async () => {
    const t = await tenant();
    const rx = await receiver();
    const endpoint = await addEndpoint(t, rx.url);
    await t.people.recording('meeting', { owner: t.seller });
    await t.people.recording('meeting', { owner: t.seller });
    await eventually(async () => rx.received.length === 2, 30_000);
    await sleep(300);
    await w.db.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '31 days'
       WHERE id = (SELECT min(d.id) FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.public_id = $1)`,
      [endpoint.endpoint_id],
    );
    expect(await w.app.get(WebhookDeliveries).purge(30)).toBeGreaterThanOrEqual(1);
    expect(await deliveriesOf(endpoint)).toHaveLength(1);
  });
});
