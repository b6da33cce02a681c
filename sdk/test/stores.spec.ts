import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonFileStore, MemoryStore, SyncObject } from '../src/index.js';

const meeting = (id: string, title = `title of ${id}`): SyncObject => ({ object: 'meeting', id, parent_id: null, details: { id, title } });
const message = (id: string, parent: string): SyncObject => ({
  object: 'chat_message',
  id,
  parent_id: parent,
  details: { id, text: 'olá 👋' },
});

async function fileLines(path: string): Promise<string[]> {
  return (await readFile(path, 'utf8')).split('\n');
}

describe('MemoryStore', () => {
  it('puts, gets, has, deletes, and saves and loads the cursor, as copies', () => {
    const store = new MemoryStore();
    const value = meeting('mtg_1');

    expect(store.get('meeting:mtg_1')).toBeUndefined();
    expect(store.has('meeting:mtg_1')).toBe(false);
    expect(store.loadCursor()).toBeNull();

    store.put('meeting:mtg_1', value);
    value.details.title = 'changed after put';
    expect(store.has('meeting:mtg_1')).toBe(true);
    const got = store.get('meeting:mtg_1')!;
    expect(got).toEqual(meeting('mtg_1'));
    got.details.title = 'changed after get';
    expect(store.get('meeting:mtg_1')).toEqual(meeting('mtg_1'));

    store.put('meeting:mtg_1', meeting('mtg_1', 'second'));
    expect(store.get('meeting:mtg_1')).toEqual(meeting('mtg_1', 'second'));

    expect(store.delete('meeting:mtg_1')).toBe(true);
    expect(store.delete('meeting:mtg_1')).toBe(false);
    expect(store.has('meeting:mtg_1')).toBe(false);

    const checkpoint = { export: { feed_cursor: 'cur_1', after: 'mtg_9', stream: 0 } };
    store.saveCursor(checkpoint);
    checkpoint.export.after = 'mutated';
    expect(store.loadCursor()).toEqual({ export: { feed_cursor: 'cur_1', after: 'mtg_9', stream: 0 } });
    store.saveCursor({ cursor: 'cur_2' });
    expect(store.loadCursor()).toEqual({ cursor: 'cur_2' });
  });
});

describe('JsonFileStore', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sdk-store-'));
    path = join(dir, 'copy.jsonl');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('puts, gets, has, deletes, saves and loads the cursor', async () => {
    const store = await JsonFileStore.open(path);
    expect(store.size).toBe(0);
    expect(store.loadCursor()).toBeNull();

    await store.put('meeting:mtg_1', meeting('mtg_1'));
    await store.put('chat_message:wamsg_1', message('wamsg_1', 'wa_1'));
    expect(store.get('meeting:mtg_1')).toEqual(meeting('mtg_1'));
    expect(store.get('chat_message:wamsg_1')).toEqual(message('wamsg_1', 'wa_1'));
    expect(store.has('meeting:mtg_1')).toBe(true);
    expect(store.get('meeting:mtg_2')).toBeUndefined();

    await expect(store.delete('meeting:mtg_1')).resolves.toBe(true);
    await expect(store.delete('meeting:mtg_1')).resolves.toBe(false);
    expect(store.has('meeting:mtg_1')).toBe(false);
    expect(store.size).toBe(1);

    await store.saveCursor({ cursor: 'cur_1' });
    expect(store.loadCursor()).toEqual({ cursor: 'cur_1' });
    expect([...store.entries()]).toEqual([['chat_message:wamsg_1', message('wamsg_1', 'wa_1')]]);
    await store.close();
    await expect(store.put('meeting:mtg_3', meeting('mtg_3'))).rejects.toThrow('the store is closed');
  });

  it('reopened, replays the journal: objects and checkpoint', async () => {
    const store = await JsonFileStore.open(path);
    await store.put('meeting:mtg_1', meeting('mtg_1'));
    await store.put('meeting:mtg_2', meeting('mtg_2'));
    await store.saveCursor({ export: { feed_cursor: 'cur_f', after: 'mtg_2', stream: 0 } });
    await store.close(); // no dead line: nothing compacted, the journal is as written

    expect(await fileLines(path)).toEqual([
      `{"put":"meeting:mtg_1","value":${JSON.stringify(meeting('mtg_1'))}}`,
      `{"put":"meeting:mtg_2","value":${JSON.stringify(meeting('mtg_2'))}}`,
      '{"export":{"feed_cursor":"cur_f","after":"mtg_2","stream":0}}',
      '',
    ]);

    const reopened = await JsonFileStore.open(path);
    expect(reopened.size).toBe(2);
    expect(reopened.get('meeting:mtg_1')).toEqual(meeting('mtg_1'));
    expect(reopened.get('meeting:mtg_2')).toEqual(meeting('mtg_2'));
    expect(reopened.loadCursor()).toEqual({ export: { feed_cursor: 'cur_f', after: 'mtg_2', stream: 0 } });
    await reopened.close();
  });

  it('replays in order: the last put wins, a delete removes, the last checkpoint holds', async () => {
    await writeFile(
      path,
      [
        `{"put":"meeting:mtg_1","value":${JSON.stringify(meeting('mtg_1', 'first'))}}`,
        `{"put":"meeting:mtg_2","value":${JSON.stringify(meeting('mtg_2'))}}`,
        '{"export":{"feed_cursor":"cur_f","after":"mtg_2","stream":0}}',
        `{"put":"meeting:mtg_1","value":${JSON.stringify(meeting('mtg_1', 'second'))}}`,
        '{"delete":"meeting:mtg_2"}',
        // Not the store's own spelling: read by parsing.
        `{ "put": "call:cal_1", "value": ${JSON.stringify({ object: 'call', id: 'cal_1', parent_id: null, details: {} })} }`,
        '{"cursor":"cur_2"}',
        '',
      ].join('\n'),
    );

    const store = await JsonFileStore.open(path);

    expect([...store.entries()]).toEqual([
      ['meeting:mtg_1', meeting('mtg_1', 'second')],
      ['call:cal_1', { object: 'call', id: 'cal_1', parent_id: null, details: {} }],
    ]);
    expect(store.loadCursor()).toEqual({ cursor: 'cur_2' });
    await store.close();
  });

  it('ignores a torn last line and truncates it away on open', async () => {
    const store = await JsonFileStore.open(path);
    await store.put('meeting:mtg_1', meeting('mtg_1'));
    await store.saveCursor({ cursor: 'cur_1' });
    await store.close();
    const whole = await readFile(path, 'utf8');
    await appendFile(path, '{"put":"meeting:mtg_2","value":{"object":"meet');

    const reopened = await JsonFileStore.open(path);

    expect(reopened.size).toBe(1);
    expect(reopened.has('meeting:mtg_2')).toBe(false);
    expect(reopened.loadCursor()).toEqual({ cursor: 'cur_1' });
    expect(await readFile(path, 'utf8')).toBe(whole);
    expect((await stat(path)).size).toBe(Buffer.byteLength(whole));

    // Appending goes on after the last whole line.
    await reopened.put('meeting:mtg_3', meeting('mtg_3'));
    await reopened.saveCursor({ cursor: 'cur_3' });
    await reopened.close();
    const again = await JsonFileStore.open(path);
    expect([...again.entries()].map(([key]) => key)).toEqual(['meeting:mtg_1', 'meeting:mtg_3']);
    expect(again.loadCursor()).toEqual({ cursor: 'cur_3' });
    await again.close();
  });

  it('close() compacts the journal to its live objects and one checkpoint line', async () => {
    const store = await JsonFileStore.open(path);
    await store.put('meeting:mtg_1', meeting('mtg_1', 'old'));
    await store.put('meeting:mtg_2', meeting('mtg_2'));
    await store.put('meeting:mtg_1', meeting('mtg_1', 'new'));
    await store.delete('meeting:mtg_2');
    await store.saveCursor({ cursor: 'cur_1' });
    await store.saveCursor({ cursor: 'cur_2' });
    await store.put('chat_message:wamsg_1', message('wamsg_1', 'wa_1'));
    await store.saveCursor({ cursor: 'cur_3' });
    await store.close();

    expect(await fileLines(path)).toEqual([
      `{"put":"meeting:mtg_1","value":${JSON.stringify(meeting('mtg_1', 'new'))}}`,
      `{"put":"chat_message:wamsg_1","value":${JSON.stringify(message('wamsg_1', 'wa_1'))}}`,
      '{"cursor":"cur_3"}',
      '',
    ]);
    const reopened = await JsonFileStore.open(path);
    expect(reopened.get('meeting:mtg_1')).toEqual(meeting('mtg_1', 'new'));
    expect(reopened.size).toBe(2);
    expect(reopened.loadCursor()).toEqual({ cursor: 'cur_3' });
    await reopened.close();
  });

  it('a checkpoint compacts the journal once it holds more than twice as many lines as live objects', async () => {
    const store = await JsonFileStore.open(path);
    await store.put('meeting:mtg_1', meeting('mtg_1', 'a'));
    await store.put('meeting:mtg_1', meeting('mtg_1', 'b'));
    await store.saveCursor({ cursor: 'cur_1' }); // 3 lines for 1 object: not more than 2 × (1 + 1)
    expect(await fileLines(path)).toHaveLength(4);
    await store.put('meeting:mtg_1', meeting('mtg_1', 'c'));
    await store.saveCursor({ cursor: 'cur_2' }); // 5 lines: compacted
    expect(await fileLines(path)).toEqual([
      `{"put":"meeting:mtg_1","value":${JSON.stringify(meeting('mtg_1', 'c'))}}`,
      '{"cursor":"cur_2"}',
      '',
    ]);
    await store.close();
  });

  it('a journal with puts but no checkpoint opens empty (and is emptied)', async () => {
    await writeFile(
      path,
      [
        `{"put":"meeting:mtg_1","value":${JSON.stringify(meeting('mtg_1'))}}`,
        `{"put":"meeting:mtg_2","value":${JSON.stringify(meeting('mtg_2'))}}`,
        '',
      ].join('\n'),
    );

    const store = await JsonFileStore.open(path);

    expect(store.size).toBe(0);
    expect(store.get('meeting:mtg_1')).toBeUndefined();
    expect(store.loadCursor()).toBeNull();
    expect(await readFile(path, 'utf8')).toBe('');
    await store.close();
  });

  it('a damaged line before the last one is refused', async () => {
    await writeFile(path, ['not json', '{"cursor":"cur_1"}', ''].join('\n'));

    await expect(JsonFileStore.open(path)).rejects.toThrow('line 1 is damaged');
  });
});
