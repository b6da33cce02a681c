import { ApiError, ConversationApi } from '../src/index.js';
import { CONTEXT, contextAnswer, envelope, harness, json, rejection } from './fakes';

function page(ids: string[], nextCursor: string | null, hasMore: boolean, limit = 2): Response {
  return json(200, {
    data: ids.map((id) => ({ id })),
    pagination: { limit, has_more: hasMore, next_cursor: nextCursor },
    request_id: `req_${ids.join('_')}`,
  });
}

function changesPage(ids: string[], nextCursor: string, hasMore: boolean): Response {
  const data = ids.map((id) => ({
    id,
    object: 'meeting',
    object_id: `mtg_${id}`,
    parent_id: null,
    action: 'created',
    changed: [],
    committed_at: '2024-01-01T00:00:00Z',
  }));
  return json(200, { data, pagination: { limit: 100, has_more: hasMore, next_cursor: nextCursor }, request_id: 'req_changes' });
}

const query = (url: URL): Record<string, string> => Object.fromEntries(url.searchParams);

describe('lists', () => {
  it('iterate every item of every page in order, asking for page N+1 only once page N was consumed', async () => {
    const { api, server } = harness();
    server.answers.push(page(['m1', 'm2'], 'cur_1', true), page(['m3', 'm4'], 'cur_2', true), page(['m5'], 'cur_3', false));

    const list = api.meetings.list({ limit: 2, ids: ['a', 'b'], include: ['evaluation', 'answers'] });
    expect(server.sent).toHaveLength(0); // nothing before iterating
    const seen: Array<[string, number]> = [];
    for await (const meeting of list) seen.push([meeting.id, server.apiRequests.length]);

    expect(seen).toEqual([
      ['m1', 1],
      ['m2', 1],
      ['m3', 2],
      ['m4', 2],
      ['m5', 3],
    ]);
    // has_more false ends the list even though next_cursor is set.
    expect(server.apiRequests).toHaveLength(3);
    const common = { limit: '2', ids: 'a,b', include: 'evaluation,answers' };
    expect(server.apiRequests.map((s) => query(s.url))).toEqual([common, { ...common, cursor: 'cur_1' }, { ...common, cursor: 'cur_2' }]);
    expect(server.apiRequests.map((s) => `${s.method} ${s.path}`)).toEqual(Array(3).fill('GET /v1/meetings'));
  });

  it('stop requesting when the consumer stops', async () => {
    const { api, server } = harness();
    server.answers.push(page(['m1', 'm2'], 'cur_1', true), page(['m3'], null, false));

    for await (const meeting of api.meetings.list()) {
      expect(meeting.id).toBe('m1');
      break;
    }

    expect(server.apiRequests).toHaveLength(1);
  });

  it('.pages() yields each page with its cursor and stops on has_more false', async () => {
    const { api, server } = harness();
    server.answers.push(page(['c1', 'c2'], 'cur_1', true), page([], 'cur_2', true), page(['c3'], null, false));

    const pages = [];
    for await (const p of api.calls.list({ limit: 2 }).pages())
      pages.push({ ids: p.data.map((c) => c.id), pagination: p.pagination, requests: server.apiRequests.length });

    expect(pages).toEqual([
      { ids: ['c1', 'c2'], pagination: { limit: 2, has_more: true, next_cursor: 'cur_1' }, requests: 1 },
      { ids: [], pagination: { limit: 2, has_more: true, next_cursor: 'cur_2' }, requests: 2 }, // an empty page does not end the list
      { ids: ['c3'], pagination: { limit: 2, has_more: false, next_cursor: null }, requests: 3 },
    ]);
    expect(server.apiRequests.map((s) => query(s.url))).toEqual([
      { limit: '2' },
      { limit: '2', cursor: 'cur_1' },
      { limit: '2', cursor: 'cur_2' },
    ]);
  });

  it('toArray() and firstPage()', async () => {
    const { api, server } = harness();
    server.answers.push(page(['e1'], 'cur_1', true), page(['e2'], null, false), page(['e1'], 'cur_1', true));

    await expect(api.emails.list({ include: ['messages'] }).toArray()).resolves.toEqual([{ id: 'e1' }, { id: 'e2' }]);
    const first = await api.emails.list().firstPage();

    expect(first.data).toEqual([{ id: 'e1' }]);
    expect(server.apiRequests.map((s) => query(s.url))).toEqual([{ include: 'messages' }, { include: 'messages', cursor: 'cur_1' }, {}]);
  });

  it('toArray({ limit }) holds the first limit items and requests no page past them; a limit outside 1 to 10,000 is a TypeError', async () => {
    const { api, server } = harness();
    server.answers.push(page(['m1', 'm2'], 'cur_1', true), page(['m3', 'm4'], 'cur_2', true), page(['m5'], null, false));

    await expect(api.meetings.list({ limit: 2 }).toArray({ limit: 3 })).resolves.toEqual([{ id: 'm1' }, { id: 'm2' }, { id: 'm3' }]);
    expect(server.apiRequests.map((s) => query(s.url))).toEqual([{ limit: '2' }, { limit: '2', cursor: 'cur_1' }]);

    for (const limit of [0, -1, 1.5, 10_001, Number.NaN]) await expect(api.meetings.list().toArray({ limit })).rejects.toThrow(TypeError);
    expect(server.apiRequests).toHaveLength(2);
  });

  it('changes.list({start}) sends start on the first request only, never with a cursor', async () => {
    const { api, server } = harness();
    server.answers.push(changesPage(['chg_1'], 'cur_2', true), changesPage(['chg_2'], 'cur_3', true), changesPage([], 'cur_4', false));

    const ids = [];
    for await (const change of api.changes.list({ start: 'now', types: ['meeting', 'call'], limit: 100 })) ids.push(change.id);

    expect(ids).toEqual(['chg_1', 'chg_2']);
    expect(server.apiRequests.map((s) => query(s.url))).toEqual([
      { start: 'now', types: 'meeting,call', limit: '100' },
      { cursor: 'cur_2', types: 'meeting,call', limit: '100' },
      { cursor: 'cur_3', types: 'meeting,call', limit: '100' },
    ]);
  });

  it('changes.list({cursor, start}) begins at the cursor and never sends start', async () => {
    const { api, server } = harness();
    server.answers.push(changesPage(['chg_9'], 'cur_10', false));

    const pages = [];
    for await (const p of api.changes.list({ cursor: 'cur_9', start: 'beginning' }).pages()) pages.push(p.pagination.next_cursor);

    expect(pages).toEqual(['cur_10']);
    expect(server.apiRequests.map((s) => query(s.url))).toEqual([{ cursor: 'cur_9' }]);
  });
});

describe('typed methods', () => {
  const ID = 'id 1/ä?#';
  const ENC = 'id%201%2F%C3%A4%3F%23';
  const one = (marker: string) => json(200, { data: { marker }, request_id: 'req' });
  const list = (marker: string) =>
    json(200, { data: [{ marker }], pagination: { limit: 50, has_more: false, next_cursor: null }, request_id: 'req' });

  it.each<[string, (api: ConversationApi) => Promise<unknown>, 'one' | 'list', string, Record<string, string>]>([
    [
      'meetings.get',
      (api) => api.meetings.get(ID, { include: ['transcript', 'answers'] }),
      'one',
      `/v1/meetings/${ENC}`,
      { include: 'transcript,answers' },
    ],
    ['meetings.evaluation', (api) => api.meetings.evaluation(ID), 'one', `/v1/meetings/${ENC}/evaluations/overall`, {}],
    ['meetings.answers', (api) => api.meetings.answers(ID), 'one', `/v1/meetings/${ENC}/answers`, {}],
    ['meetings.transcript', (api) => api.meetings.transcript(ID), 'one', `/v1/meetings/${ENC}/transcript`, {}],
    [
      'calls.list',
      (api) =>
        api.calls
          .list({ ids: 'x,y' })
          .firstPage()
          .then((p) => p.data[0]),
      'list',
      '/v1/calls',
      { ids: 'x,y' },
    ],
    ['calls.get', (api) => api.calls.get(ID), 'one', `/v1/calls/${ENC}`, {}],
    ['calls.evaluation', (api) => api.calls.evaluation(ID), 'one', `/v1/calls/${ENC}/evaluations/overall`, {}],
    ['calls.answers', (api) => api.calls.answers(ID), 'one', `/v1/calls/${ENC}/answers`, {}],
    ['calls.transcript', (api) => api.calls.transcript(ID), 'one', `/v1/calls/${ENC}/transcript`, {}],
    ['emails.get', (api) => api.emails.get(ID, { include: ['messages'] }), 'one', `/v1/emails/${ENC}`, { include: 'messages' }],
    [
      'emails.messages',
      (api) =>
        api.emails
          .messages(ID, { ids: ['em_1', 'em_2'] })
          .firstPage()
          .then((p) => p.data[0]),
      'list',
      `/v1/emails/${ENC}/messages`,
      { ids: 'em_1,em_2' },
    ],
    ['emails.message', (api) => api.emails.message(ID, 'msg/2'), 'one', `/v1/emails/${ENC}/messages/msg%2F2`, {}],
    [
      'chat.list',
      (api) =>
        api.chat
          .list()
          .firstPage()
          .then((p) => p.data[0]),
      'list',
      '/v1/chat',
      {},
    ],
    ['chat.get', (api) => api.chat.get(ID), 'one', `/v1/chat/${ENC}`, {}],
    [
      'chat.messages',
      (api) =>
        api.chat
          .messages(ID)
          .firstPage()
          .then((p) => p.data[0]),
      'list',
      `/v1/chat/${ENC}/messages`,
      {},
    ],
    ['chat.message', (api) => api.chat.message(ID, 'wamsg_1'), 'one', `/v1/chat/${ENC}/messages/wamsg_1`, {}],
  ])('%s requests GET %s', async (name, call, shape, path, expectedQuery) => {
    const { api, server } = harness();
    server.answers.push(shape === 'one' ? one(name) : list(name));

    await expect(call(api)).resolves.toEqual({ marker: name });

    expect(server.apiRequests).toHaveLength(1);
    const [sent] = server.apiRequests;
    expect(`${sent!.method} ${sent!.path}`).toBe(`GET ${path}`);
    expect(query(sent!.url)).toEqual(expectedQuery);
    expect(sent!.url.origin).toBe('https://api.test');
    expect(sent!.headers.get('authorization')).toBe('Bearer tok_1');
  });

  describe('captions', () => {
    const VTT = 'WEBVTT\n\n00:00:00.000 --> 00:00:01.200\n<v Ana>Olá &amp; bem-vindos.\n';
    const text = (body: string, type: string) => new Response(body, { status: 200, headers: { 'Content-Type': `${type}; charset=utf-8` } });

    it.each<[string, (api: ConversationApi) => Promise<string>, string, string]>([
      ['meetings.captions', (api) => api.meetings.captions(ID), `/v1/meetings/${ENC}/transcript/captions`, 'vtt'],
      ['meetings.captions srt', (api) => api.meetings.captions(ID, { format: 'srt' }), `/v1/meetings/${ENC}/transcript/captions`, 'srt'],
      ['calls.captions', (api) => api.calls.captions(ID), `/v1/calls/${ENC}/transcript/captions`, 'vtt'],
      ['calls.captions text', (api) => api.calls.captions(ID, { format: 'text' }), `/v1/calls/${ENC}/transcript/captions`, 'text'],
    ])('%s requests GET %s and returns the body as it came', async (_name, call, path, format) => {
      const { api, server } = harness();
      server.answers.push(text(VTT, 'text/vtt'));

      const body: string = await call(api);
      expect(body).toBe(VTT);
      const [sent] = server.apiRequests;
      expect(`${sent!.method} ${sent!.path}`).toBe(`GET ${path}`);
      expect(query(sent!.url)).toEqual({ format });
      expect(sent!.headers.get('authorization')).toBe('Bearer tok_1');
    });

    it('keeps a body that is not JSON as it is (SubRip, plain text)', async () => {
      const { api, server } = harness();
      server.answers.push(
        text('1\n00:00:00,000 --> 00:00:01,200\nAna: {"not": json\n', 'application/x-subrip'),
        text('Ana: oi\n', 'text/plain'),
      );
      await expect(api.meetings.captions(ID, { format: 'srt' })).resolves.toBe('1\n00:00:00,000 --> 00:00:01,200\nAna: {"not": json\n');
      await expect(api.meetings.captions(ID, { format: 'text' })).resolves.toBe('Ana: oi\n');
    });

    it('throws the ApiError of an unavailable transcript (404 RESOURCE_NOT_FOUND, its status in the detail)', async () => {
      const { api, server } = harness();
      const detail = "The meeting's transcript is not available: its status is processing.";
      server.answers.push(envelope(404, 'RESOURCE_NOT_FOUND', { type: 'NotFoundError', detail }));
      const error = await rejection(api.meetings.captions(ID));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND', detail });
    });

    it('refuses an id that is no path segment before sending anything', async () => {
      const { api, server } = harness();
      await expect(api.calls.captions('..')).rejects.toThrow(TypeError);
      expect(server.apiRequests).toHaveLength(0);
    });
  });

  it('context() requests GET /v1/context and returns its data', async () => {
    const { api, server } = harness();
    server.answers.push(contextAnswer());

    await expect(api.context()).resolves.toEqual(CONTEXT);
    expect(server.apiRequests.map((s) => `${s.method} ${s.url.pathname}${s.url.search}`)).toEqual(['GET /v1/context']);
  });

  it('changes.page() requests GET /v1/changes with its query and returns the whole page', async () => {
    const { api, server } = harness();
    server.answers.push(changesPage(['chg_1'], 'cur_2', true));

    const result = await api.changes.page({ cursor: 'cur_1', types: ['email', 'email_message'], limit: 10 });

    expect(result.pagination).toEqual({ limit: 100, has_more: true, next_cursor: 'cur_2' });
    expect(result.data.map((c) => c.id)).toEqual(['chg_1']);
    const [sent] = server.apiRequests;
    expect(sent!.path).toBe('/v1/changes');
    expect(query(sent!.url)).toEqual({ cursor: 'cur_1', types: 'email,email_message', limit: '10' });
  });

  it('a trailing slash of baseUrl is dropped and userAgent is sent', async () => {
    const { api, server } = harness({ baseUrl: 'https://api.test/', userAgent: 'my-app/1.0' });
    server.answers.push(contextAnswer());

    await api.context();

    expect(server.sent.map((s) => s.url.href)).toEqual(['https://api.test/oauth/token', 'https://api.test/v1/context']);
    expect(server.apiRequests[0]!.headers.get('user-agent')).toBe('my-app/1.0');
  });

  it('the constructor refuses a missing baseUrl or credentials', () => {
    expect(() => new ConversationApi({ baseUrl: '', clientId: 'a', clientSecret: 'b' })).toThrow(TypeError);
    expect(() => new ConversationApi({ baseUrl: 'https://x', clientId: '', clientSecret: 'b' })).toThrow(TypeError);
    expect(() => new ConversationApi({ baseUrl: 'https://x', clientId: 'a', clientSecret: '' })).toThrow(TypeError);
  });
});
