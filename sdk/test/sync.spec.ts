import { ApiError, MemoryStore, SyncCheckpoint, SyncObject, syncCopy } from '../src/index.js';
import { envelope, harness, json, rejection, tokenAnswer, until } from './fakes';

const query = (url: URL): Record<string, string> => Object.fromEntries(url.searchParams);

/** A store that also logs, in order, each put, delete and checkpoint it was handed. */
class LoggedStore extends MemoryStore {
  readonly log: string[] = [];
  override put(key: string, value: SyncObject): void {
    this.log.push(`put ${key}`);
    super.put(key, value);
  }
  override delete(key: string): boolean {
    this.log.push(`delete ${key}`);
    return super.delete(key);
  }
  override saveCursor(checkpoint: SyncCheckpoint): void {
    this.log.push(`checkpoint ${JSON.stringify(checkpoint)}`);
    super.saveCursor(checkpoint);
  }
}

function exportAnswer(lines: unknown[], feedCursor: string | null): Response {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-ndjson', ...(feedCursor ? { 'Feed-Cursor': feedCursor } : {}) };
  return new Response(lines.map((line) => `${JSON.stringify(line)}\n`).join(''), { status: 200, headers });
}

function page(data: unknown[], nextCursor: string | null, hasMore = false): Response {
  return json(200, { data, pagination: { limit: 100, has_more: hasMore, next_cursor: nextCursor }, request_id: 'req_page' });
}

function entry(object: string, objectId: string, action: string, parentId: string | null = null) {
  return {
    id: `chg_${objectId}`,
    object,
    object_id: objectId,
    parent_id: parentId,
    action,
    changed: [],
    committed_at: '2024-01-01T00:00:00Z',
  };
}

const meeting = (id: string, score = 1) => ({ object: 'meeting', id, title: id, included: { evaluation: { score }, answers: [] } });
const trailer = (cursor: string | null) => ({ object: 'export', records: {}, feed_cursor: cursor });

describe('sync: a complete, current copy', () => {
  it('takes the first copy by export, then follows the feed from the export’s first Feed-Cursor, each checkpoint after what it covers', async () => {
    const { api, server } = harness();
    const call = { object: 'call', id: 'cll_1', title: 'cll_1', included: { evaluation: { score: 2 }, answers: [] } };
    server.answers.push(exportAnswer([meeting('mtg_1'), call, trailer('cur_1')], 'cur_1'), page([], 'cur_2'));
    const store = new LoggedStore();

    const result = await api.sync(store);

    expect(server.apiRequests.map((s) => [s.path, query(s.url)])).toEqual([
      ['/v1/export', { types: 'meeting,call', include: 'evaluation,answers' }],
      ['/v1/changes', { limit: '100', cursor: 'cur_1' }],
    ]);
    expect(store.get('meeting:mtg_1')).toEqual({
      object: 'meeting',
      id: 'mtg_1',
      parent_id: null,
      details: { object: 'meeting', id: 'mtg_1', title: 'mtg_1' },
      evaluation: { score: 1 },
      answers: [],
    });
    expect(store.log).toEqual([
      'checkpoint {"export":{"feed_cursor":"cur_1","after":null,"stream":0}}',
      'put meeting:mtg_1',
      'put call:cll_1',
      'checkpoint {"cursor":"cur_1"}',
      'checkpoint {"cursor":"cur_2"}',
    ]);
    expect(result).toEqual({
      rounds: 1,
      pages: 1,
      entries: 0,
      exported: 2,
      fetched: 0,
      objects: 2,
      created: 2,
      updated: 0,
      deleted: 0,
      requests: 2,
      checkpoint: { cursor: 'cur_2' },
    });
  });

  it('fetches what feed entries name by ids + include, a message through its conversation (the rest from messages_next_cursor), and deletes what did not come back', async () => {
    const { api, server } = harness();
    server.tokens.push(tokenAnswer('tok_1', 3600, 'meetings.read emails.read emails.content.read'));
    const store = new LoggedStore();
    store.put('meeting:mtg_1', { object: 'meeting', id: 'mtg_1', parent_id: null, details: {} });
    store.put('meeting:mtg_2', { object: 'meeting', id: 'mtg_2', parent_id: null, details: {} });
    store.saveCursor({ cursor: 'cur_5' });
    store.log.length = 0;
    const email = {
      object: 'email_conversation',
      id: 'eml_1',
      subject: 'Hello',
      included: { messages: [{ object: 'email_message', id: 'emsg_1' }], messages_next_cursor: 'mcur_1' },
    };
    server.answers.push(
      page(
        [entry('meeting', 'mtg_1', 'updated'), entry('meeting', 'mtg_2', 'deleted'), entry('email_message', 'emsg_1', 'created', 'eml_1')],
        'cur_6',
      ),
      page([meeting('mtg_1', 5)], null),
      page([email], null),
      page([{ object: 'email_message', id: 'emsg_2' }], null),
    );

    const result = await syncCopy(api, store);

    expect(server.apiRequests.map((s) => [s.path, query(s.url)])).toEqual([
      ['/v1/changes', { limit: '100', cursor: 'cur_5' }],
      ['/v1/meetings', { ids: 'mtg_1,mtg_2', limit: '100', include: 'evaluation,answers' }],
      ['/v1/emails', { ids: 'eml_1', limit: '100', include: 'messages' }],
      ['/v1/emails/eml_1/messages', { cursor: 'mcur_1', limit: '100' }],
    ]);
    expect(store.log).toEqual([
      'put meeting:mtg_1',
      'put email:eml_1',
      'put email_message:emsg_1',
      'put email_message:emsg_2',
      'delete meeting:mtg_2',
      'checkpoint {"cursor":"cur_6"}',
    ]);
    expect(store.get('email:eml_1')).toEqual({
      object: 'email',
      id: 'eml_1',
      parent_id: null,
      details: { object: 'email_conversation', id: 'eml_1', subject: 'Hello' },
    });
    expect(store.get('email_message:emsg_2')).toEqual({
      object: 'email_message',
      id: 'emsg_2',
      parent_id: 'eml_1',
      details: { object: 'email_message', id: 'emsg_2' },
    });
    expect(store.get('meeting:mtg_1')?.evaluation).toEqual({ score: 5 });
    expect(result).toMatchObject({ entries: 3, fetched: 2, created: 1, updated: 1, deleted: 1, objects: 4, requests: 4 });
  });

  it('exports a channel whose messages the token cannot read in a stream of its own, the copy keeping the first stream’s Feed-Cursor', async () => {
    const { api, server } = harness();
    server.tokens.push(tokenAnswer('tok_1', 3600, 'emails.read emails.content.read chat.read'));
    const email = {
      object: 'email_conversation',
      id: 'eml_1',
      included: { messages: [{ object: 'email_message', id: 'emsg_1' }], messages_next_cursor: null },
    };
    const chat = { object: 'chat_conversation', id: 'wa_1' };
    server.answers.push(
      exportAnswer([email, trailer('cur_1')], 'cur_1'),
      exportAnswer([chat, trailer('cur_9')], 'cur_9'),
      page([], 'cur_2'),
    );
    const store = new LoggedStore();

    await api.sync(store);

    expect(server.apiRequests.map((s) => [s.path, query(s.url)])).toEqual([
      ['/v1/export', { types: 'email', include: 'messages' }],
      ['/v1/export', { types: 'chat' }],
      ['/v1/changes', { limit: '100', cursor: 'cur_1' }],
    ]);
    expect(store.log).toEqual([
      'checkpoint {"export":{"feed_cursor":"cur_1","after":null,"stream":0}}',
      'put email:eml_1',
      'put email_message:emsg_1',
      'checkpoint {"export":{"feed_cursor":"cur_1","after":null,"stream":1}}',
      'put chat:wa_1',
      'checkpoint {"cursor":"cur_1"}',
      'checkpoint {"cursor":"cur_2"}',
    ]);
  });

  it('reads the feed from the beginning when the export is refused before it opens', async () => {
    const { api, server } = harness();
    server.answers.push(
      envelope(403, 'INSUFFICIENT_SCOPE'),
      page([entry('meeting', 'mtg_9', 'created')], 'cur_1'),
      page([meeting('mtg_9')], null),
    );
    const store = new MemoryStore();

    const result = await api.sync(store);

    expect(server.apiRequests.map((s) => [s.path, query(s.url)])).toEqual([
      ['/v1/export', { types: 'meeting,call', include: 'evaluation,answers' }],
      ['/v1/changes', { limit: '100' }],
      ['/v1/meetings', { ids: 'mtg_9', limit: '100', include: 'evaluation,answers' }],
    ]);
    expect([...store.objects.keys()]).toEqual(['meeting:mtg_9']);
    expect(result).toMatchObject({ exported: 0, fetched: 1, created: 1, checkpoint: { cursor: 'cur_1' } });
  });

  it('resumes a cut first copy after its last stored record, keeping the first Feed-Cursor', async () => {
    const { api, server } = harness();
    server.answers.push(exportAnswer([meeting('mtg_2'), trailer(null)], null), page([], 'cur_2'));
    const store = new LoggedStore();
    store.saveCursor({ export: { feed_cursor: 'cur_1', after: 'mtg_1', stream: 0 } });
    store.log.length = 0;

    await api.sync(store);

    expect(server.apiRequests.map((s) => [s.path, query(s.url)])).toEqual([
      ['/v1/export', { types: 'meeting,call', include: 'evaluation,answers', after: 'mtg_1' }],
      ['/v1/changes', { limit: '100', cursor: 'cur_1' }],
    ]);
    expect(store.log).toEqual(['put meeting:mtg_2', 'checkpoint {"cursor":"cur_1"}', 'checkpoint {"cursor":"cur_2"}']);
  });

  it('refuses to resume a first copy when the token reads other collections than when it began (SCOPES_CHANGED)', async () => {
    const { api, server } = harness();
    const store = new MemoryStore();
    store.saveCursor({ export: { feed_cursor: 'cur_1', after: 'mtg_1', stream: 1 } });

    const error = await rejection(api.sync(store));

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, code: 'SCOPES_CHANGED' });
    expect(server.apiRequests).toHaveLength(0);
  });

  it('with follow, polls every interval until the signal aborts, then resolves with the last checkpoint', async () => {
    const { api, server, clock } = harness();
    server.answers.push(page([], 'cur_2'));
    const store = new MemoryStore();
    store.saveCursor({ cursor: 'cur_1' });
    const stop = new AbortController();
    clock.hold = true;

    const running = api.sync(store, { follow: true, interval: 2000, signal: stop.signal });
    await until(() => clock.sleeps.length === 1);
    stop.abort();

    await expect(running).resolves.toMatchObject({ rounds: 1, pages: 1, checkpoint: { cursor: 'cur_2' } });
    expect(clock.sleeps).toEqual([2000]);
    expect(server.apiRequests).toHaveLength(1);
  });
});
