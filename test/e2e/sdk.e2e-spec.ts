import { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { ApiError, ConversationApi, MemoryStore, SyncProgress } from '../../sdk/src/index';
import { DATA_SCOPES } from '../../src/contract/scopes';
import { runCli } from '../support/cli';
import { accessToken, Demo, differences, readEverything, servedDemo } from '../support/full-read';
import type { Copy } from '../support/sync-journal';
import { createTestApp } from '../support/test-app';

type Json = Record<string, unknown>;
type Envelope = { data: Json & Json[]; pagination?: { has_more: boolean; next_cursor: string | null }; request_id: string };

/**
 * The SDK against the real service, started as every e2e test starts it: each typed method
 * answers what its route answers (read with plain fetch beside it; the captions as text), iterators walk every record
 * once whatever the page size, errors are typed, a stale token is replaced once, rate limits are
 * waited out, and `sync` keeps a copy equal to a full read. The JSON-file store, SIGKILL and
 * seed:activity: test/e2e/sync-example.e2e-spec.ts (examples/sync.mjs runs on the SDK).
 */
describe('SDK (@conversation-read-api/sdk) against the service', () => {
  let app: NestExpressApplication;
  let base: string;
  let demo: Demo;
  let api: ConversationApi;
  let bearer: string;

  beforeAll(async () => {
    ({ app, base, demo } = await servedDemo());
    api = new ConversationApi({ baseUrl: base, clientId: demo.client_id, clientSecret: demo.client_secret });
    bearer = await accessToken(base, demo.client_id, demo.client_secret);
  });
  afterAll(() => app.close());

  /** A route's answer, by plain fetch. */
  async function raw(path: string): Promise<Envelope> {
    const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${bearer}` } });
    expect([path, res.status]).toEqual([path, 200]);
    return (await res.json()) as Envelope;
  }

  /** Every item of a list route, by plain fetch, 100 a page. */
  async function rawAll(path: string): Promise<Json[]> {
    const items: Json[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await raw(`${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      items.push(...page.data);
      cursor = page.pagination!.has_more ? page.pagination!.next_cursor : null;
    } while (cursor);
    return items;
  }

  /** Everything an iterable yields (the SDK's typed records, read here as plain JSON with an id). */
  const collect = async (iterable: AsyncIterable<object>): Promise<Array<Json & { id: string }>> => {
    const out: Array<Json & { id: string }> = [];
    for await (const item of iterable) out.push(item as Json & { id: string });
    return out;
  };

  it('every typed method answers exactly what its route answers', async () => {
    const context = await api.context();
    const rawContext = (await raw('/v1/context')).data;
    expect({ ...context, rate_limits: [] }).toEqual({ ...rawContext, rate_limits: [] });
    expect(context.scopes.sort()).toEqual([...DATA_SCOPES].sort()); // the demo's client: every data scope, not audit.read

    for (const [resource, collection] of [
      [api.meetings, 'meetings'],
      [api.calls, 'calls'],
    ] as const) {
      const list = await collect(resource.list());
      expect(list).toEqual(await rawAll(`/v1/${collection}`));
      expect(list.length).toBeGreaterThan(5);
      for (const { id } of list) {
        const at = `/v1/${collection}/${id}`;
        expect(await resource.get(id)).toEqual((await raw(at)).data);
        expect(await resource.get(id, { include: ['evaluation', 'answers', 'transcript'] })).toEqual(
          (await raw(`${at}?include=evaluation,answers,transcript`)).data,
        );
        expect(await resource.evaluation(id)).toEqual((await raw(`${at}/evaluations/overall`)).data);
        expect(await resource.answers(id)).toEqual((await raw(`${at}/answers`)).data);
        const transcript = await resource.transcript(id);
        expect(transcript).toEqual((await raw(`${at}/transcript`)).data);
        if (!transcript.available) {
          await expect(resource.captions(id)).rejects.toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND' });
          continue;
        }
        for (const format of [undefined, 'vtt', 'srt', 'text'] as const) {
          const res = await fetch(`${base}${at}/transcript/captions?format=${format ?? 'vtt'}`, {
            headers: { Authorization: `Bearer ${bearer}` },
          });
          expect([format, res.status]).toEqual([format, 200]);
          expect([format, await resource.captions(id, format === undefined ? {} : { format })]).toEqual([format, await res.text()]);
        }
      }
      // ids + include: the batch the sync fetches, as the route answers it.
      const ids = list.slice(0, 7).map((r) => r.id);
      expect(await collect(resource.list({ ids, include: ['evaluation', 'answers', 'transcript'] }))).toEqual(
        await rawAll(`/v1/${collection}?ids=${ids.join(',')}&include=evaluation,answers,transcript`),
      );
    }

    for (const [resource, collection] of [
      [api.emails, 'emails'],
      [api.chat, 'chat'],
    ] as const) {
      const list = await collect(resource.list());
      expect(list).toEqual(await rawAll(`/v1/${collection}`));
      expect(list.length).toBeGreaterThan(2);
      for (const { id } of list) {
        const at = `/v1/${collection}/${id}`;
        expect(await resource.get(id)).toEqual((await raw(at)).data);
        expect(await resource.get(id, { include: ['messages'] })).toEqual((await raw(`${at}?include=messages`)).data);
        const messages = await collect(resource.messages(id));
        expect(messages).toEqual(await rawAll(`${at}/messages`));
        for (const message of messages)
          expect(await resource.message(id, message.id)).toEqual((await raw(`${at}/messages/${message.id}`)).data);
      }
      const ids = list.map((c) => c.id);
      expect(await collect(resource.list({ ids, include: ['messages'] }))).toEqual(
        await rawAll(`/v1/${collection}?ids=${ids.join(',')}&include=messages`),
      );
    }

    const feed = await collect(api.changes.list());
    expect(feed).toEqual(await rawAll('/v1/changes'));
    const first = await api.changes.page({ limit: 5 });
    expect(first.data).toEqual((await raw('/v1/changes?limit=5')).data);
    const head = await api.changes.page({ start: 'now' });
    expect(head.data).toEqual([]);
    expect(await collect(api.changes.list({ cursor: head.pagination.next_cursor }))).toEqual([]);
  });

  it('iterators walk every record once, in order, at limits 1, 7 and 100', async () => {
    const [email] = await collect(api.emails.list());
    const chats = await collect(api.chat.list());
    const busiest = chats.sort((a, b) => Number(b.message_count) - Number(a.message_count))[0]!;
    const walks: Array<[string, (limit: number) => AsyncIterable<{ id: string }>]> = [
      ['/v1/meetings', (limit) => api.meetings.list({ limit })],
      ['/v1/calls', (limit) => api.calls.list({ limit })],
      ['/v1/emails', (limit) => api.emails.list({ limit })],
      ['/v1/chat', (limit) => api.chat.list({ limit })],
      [`/v1/emails/${email!.id}/messages`, (limit) => api.emails.messages(email!.id, { limit })],
      [`/v1/chat/${busiest.id}/messages`, (limit) => api.chat.messages(busiest.id, { limit })],
      ['/v1/changes', (limit) => api.changes.list({ limit })],
    ];
    for (const [path, walk] of walks) {
      const truth = (await rawAll(path)).map((item) => item.id);
      expect(truth.length).toBeGreaterThan(1);
      for (const limit of [1, 7, 100]) {
        const ids = (await collect(walk(limit))).map((item) => item.id);
        expect([path, limit, ids]).toEqual([path, limit, truth]);
      }
    }
    // Page by page: as many pages as the limit makes, each with its cursor.
    const pages: Array<{ pagination: { has_more: boolean; next_cursor: string | null } }> = [];
    for await (const page of api.meetings.list({ limit: 7 }).pages()) pages.push(page);
    const total = (await rawAll('/v1/meetings')).length;
    expect(pages).toHaveLength(Math.ceil(total / 7));
    expect(pages.slice(0, -1).every((page) => page.pagination.has_more && page.pagination.next_cursor)).toBe(true);
  });

  it('the export as an async iterator: the records of the raw stream, its Feed-Cursor and trailer', async () => {
    const res = await fetch(`${base}/v1/export?include=evaluation,answers,transcript,messages`, {
      headers: { Authorization: `Bearer ${bearer}` },
    });
    expect(res.status).toBe(200);
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    const stream = api.export({ include: ['evaluation', 'answers', 'transcript', 'messages'] });
    const records = await collect(stream);
    expect(records).toEqual(lines.slice(0, -1));
    expect(stream.trailer).toEqual({ ...lines[lines.length - 1], feed_cursor: expect.stringMatching(/^cur_/) });
    expect(stream.feedCursor).toBe(stream.trailer!.feed_cursor);
    expect(stream.requests).toBe(1);
    // Resuming after an id: the records after it, and no cursor of its own (the first stream's is the one to follow).
    const after = records[10]!.id;
    const resumed = api.export({ include: ['evaluation', 'answers', 'transcript', 'messages'] }, { after });
    expect(await collect(resumed)).toEqual(lines.slice(11, -1));
    expect(resumed.feedCursor).toBeNull();
    expect(resumed.trailer).toMatchObject({ object: 'export', feed_cursor: null });
  });

  it('failures are typed ApiErrors with status, code, detail and request id; nothing else is retried', async () => {
    const before = api.transport.requests;
    const missing = await api.meetings.get('mtg_0000000000000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({
      status: 404,
      code: 'RESOURCE_NOT_FOUND',
      type: 'NotFoundError',
      requestId: expect.stringMatching(/^req_/),
    });
    const invalid = await collect(api.meetings.list({ ids: ['not-an-id'] })).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'INVALID_FILTER', detail: expect.any(String) });
    expect(api.transport.requests - before).toBe(2);

    const made = await runCli(
      {},
      'client:create',
      '--company',
      demo.company_id,
      '--name',
      'Meetings only',
      '--scopes',
      'meetings.read',
      '--json',
    );
    const narrow = JSON.parse(made.stdout.trim()) as { client_id: string; client_secret: string };
    const meetingsOnly = new ConversationApi({ baseUrl: base, clientId: narrow.client_id, clientSecret: narrow.client_secret });
    await expect(meetingsOnly.calls.list().firstPage()).rejects.toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    const wrong = new ConversationApi({ baseUrl: base, clientId: demo.client_id, clientSecret: 'secret_wrong' });
    await expect(wrong.context()).rejects.toMatchObject({ status: 401, code: 'invalid_client' });
    expect(wrong.transport.tokenRequests).toBe(1);
  });

  it('a stale token is replaced once (401 INVALID_ACCESS_TOKEN), and the rate-limit state of the last answer is readable', async () => {
    const fresh = new ConversationApi({ baseUrl: base, clientId: demo.client_id, clientSecret: demo.client_secret });
    await fresh.context();
    expect(fresh.transport.tokenRequests).toBe(1);
    (fresh.transport as unknown as { token: { value: string } }).token.value = `${bearer.slice(0, -4)}AAAA`; // a signature that fails
    const context = await fresh.context();
    expect(context.company.id).toBe(demo.company_id);
    expect(fresh.transport.tokenRequests).toBe(2);
    expect(fresh.transport.requests).toBe(3);
    expect(fresh.rateLimit!.policies.map((p) => p.policy)).toEqual(expect.arrayContaining(['client', 'company']));
    const client = fresh.rateLimit!.policies.find((p) => p.policy === 'client')!;
    expect(client).toEqual({ policy: 'client', quota: 1_000_000, window: 60, remaining: expect.any(Number), reset: expect.any(Number) });
    // Ten calls at once with no token: one token request.
    const crowd = new ConversationApi({ baseUrl: base, clientId: demo.client_id, clientSecret: demo.client_secret });
    await Promise.all(Array.from({ length: 10 }, () => crowd.context()));
    expect(crowd.transport.tokenRequests).toBe(1);
  });

  it('429: waits Retry-After and succeeds; a call whose deadline comes before the wait ends gets the 429 at once [waits]', async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_CLIENT: '2/2' } });
    try {
      await limited.listen(0, '127.0.0.1');
      const url = `http://127.0.0.1:${(limited.getHttpServer().address() as AddressInfo).port}`;
      const slow = new ConversationApi({ baseUrl: url, clientId: demo.client_id, clientSecret: demo.client_secret });
      const started = Date.now();
      for (let i = 0; i < 5; i++) expect((await slow.context()).company.id).toBe(demo.company_id);
      expect(slow.transport.requests).toBeGreaterThan(5); // some were refused, waited out and sent again
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // two windows at least: the waits were real
      // The quota spent (plain requests until one is refused): a deadline shorter than Retry-After gets the refusal without waiting.
      const token = await accessToken(url, demo.client_id, demo.client_secret);
      while ((await fetch(`${url}/v1/context`, { headers: { Authorization: `Bearer ${token}` } })).status !== 429);
      const before = Date.now();
      const refused = await slow.context({ timeout: 100 }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: expect.any(Number) });
      expect((refused as ApiError).retryAfter).toBeGreaterThanOrEqual(1);
      expect(Date.now() - before).toBeLessThan(1000);
    } finally {
      await limited.close();
    }
  });

  it('sync into a memory store: by export, and by the feed from the beginning, each equal to a full read', async () => {
    const truth = await readEverything(base, bearer);
    for (const useExport of [true, false]) {
      const store = new MemoryStore();
      const progress: SyncProgress[] = [];
      const result = await api.sync(store, { useExport, onProgress: (p) => progress.push(p) });
      expect(differences(copyOf(store), truth)).toEqual([]);
      expect(result.rounds).toBe(1);
      expect(result.checkpoint).toEqual({ cursor: expect.stringMatching(/^cur_/) });
      expect(progress.length).toBeGreaterThan(0);
      if (useExport) {
        expect(result.exported).toBeGreaterThan(50);
        expect(result.requests).toBeLessThan(10); // one export and the feed after it
        expect(result.objects).toBe(store.objects.size); // each record and message written once
        expect(progress[0]!.phase).toBe('export');
      } else {
        expect(result.exported).toBe(0);
        expect(result.entries).toBeGreaterThan(50);
        expect(result.objects).toBeGreaterThanOrEqual(store.objects.size); // at least once
      }
      expect(progress[progress.length - 1]).toMatchObject({ phase: 'feed', lag: 0 });
      // A second run from the stored cursor: nothing new, one feed page.
      const again = await api.sync(store);
      expect(again).toMatchObject({ entries: 0, exported: 0, requests: 1 });
    }
  });

  it('follow mode keeps the copy current while seed:activity writes, and stops at a safe point on abort [waits]', async () => {
    const store = new MemoryStore();
    const stop = new AbortController();
    const rounds: SyncProgress[] = [];
    const following = api.sync(store, { follow: true, interval: 200, signal: stop.signal, onRound: (r) => rounds.push(r) });
    const activity = await runCli(
      {},
      'seed:activity',
      '--company',
      demo.company_id,
      '--minutes',
      '0.1',
      '--rate',
      '600',
      '--seed',
      '11',
      '--json',
    );
    expect(activity.code).toBe(0);
    const seen = rounds.length;
    // A round that began after the writers stopped.
    await new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error('no round after the activity')), 60_000);
      const poll = setInterval(() => {
        if (rounds.length >= seen + 2) {
          clearTimeout(deadline);
          clearInterval(poll);
          resolve();
        }
      }, 50);
    });
    stop.abort();
    const result = await following;
    expect(result.rounds).toBeGreaterThan(2);
    expect(rounds.some((r) => r.entries > 0)).toBe(true);
    // A last catch-up for what committed in the final round's wake, then the copy is the API.
    await api.sync(store);
    expect(differences(copyOf(store), await readEverything(base, bearer))).toEqual([]);
  });
});

/** A memory store's objects as the comparison's copy. */
function copyOf(store: MemoryStore): Copy {
  return Object.fromEntries([...store.objects].map(([key, value]) => [key, value as unknown as Copy[string]]));
}
