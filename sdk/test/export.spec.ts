import { ApiError, ExportRecord } from '../src/index.js';
import { harness, rejection } from './fakes';

interface FakeBody {
  stream: ReadableStream<Uint8Array>;
  /** Chunks emitted so far. */
  chunks: Uint8Array[];
  pulls(): number;
  cancelled(): boolean;
}

/**
 * A body that emits `text` in chunks of the sizes given (cycled), one chunk per pull, then closes
 * (or errors, as a connection cut does, when `cut` is set).
 */
function body(text: string, sizes: number[], cut = false): FakeBody {
  const bytes = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  let offset = 0;
  let pulls = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      if (offset >= bytes.length) {
        if (cut) controller.error(new TypeError('terminated'));
        else controller.close();
        return;
      }
      const size = sizes[chunks.length % sizes.length]!;
      const chunk = bytes.slice(offset, offset + size);
      offset += size;
      chunks.push(chunk);
      controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, chunks, pulls: () => pulls, cancelled: () => cancelled };
}

/** An export answer; `feedCursor` null: without the header (a resumed stream's, with `after`). */
function ndjsonResponse(fake: FakeBody, feedCursor: string | null): Response {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-ndjson', ...(feedCursor ? { 'Feed-Cursor': feedCursor } : {}) };
  return new Response(fake.stream, { status: 200, headers });
}

const meeting = (n: number, title = `Meeting ${n}`) => ({ object: 'meeting', id: `mtg_${n}`, title });
const trailer = (count: number, cursor: string | null) => ({ object: 'export', records: { meeting: count }, feed_cursor: cursor });
const ndjson = (...lines: unknown[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');

async function collect(iterable: AsyncIterable<ExportRecord>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const record of iterable) out.push(record);
  return out;
}

describe('export', () => {
  it('yields the records parsed across arbitrary chunk boundaries (a multi-byte character split too), with feedCursor and trailer', async () => {
    const { api, server } = harness();
    const records = [meeting(1, 'Réunion — 会議 🎉'), meeting(2, 'ß∂ƒ©˙∆˚¬…æ'), meeting(3, '')];
    const fake = body(`${ndjson(...records)}\n${ndjson(trailer(3, 'cur_feed'))}`, [1, 7, 3, 13, 2, 5]);
    server.answers.push(ndjsonResponse(fake, 'cur_feed'));

    const stream = api.export({ types: ['meeting'], include: ['evaluation', 'answers'] });
    expect(stream.feedCursor).toBeNull();
    const got = await collect(stream);

    expect(got).toEqual(records);
    // The chunking did split a character: some chunk begins with a UTF-8 continuation byte.
    expect(fake.chunks.some((chunk) => chunk[0]! >= 0x80 && chunk[0]! < 0xc0)).toBe(true);
    expect(stream.feedCursor).toBe('cur_feed');
    expect(stream.trailer).toEqual(trailer(3, 'cur_feed'));
    expect(stream.requests).toBe(1);
    const [sent] = server.apiRequests;
    expect(`${sent!.method} ${sent!.path}`).toBe('GET /v1/export');
    expect(Object.fromEntries(sent!.url.searchParams)).toEqual({ types: 'meeting', include: 'evaluation,answers' });
    expect(sent!.headers.get('accept')).toBe('application/x-ndjson');
    expect(sent!.headers.get('authorization')).toBe('Bearer tok_1');
  });

  it('a stream ending without its trailer is requested again with after=<last id>, the first Feed-Cursor kept', async () => {
    const { api, server } = harness();
    // Cut in the middle of the third line.
    const first = body(`${ndjson(meeting(1), meeting(2))}{"object":"meeting","id":"mtg_3","ti`, [10]);
    const second = body(ndjson(meeting(3), meeting(4), trailer(4, 'cur_second')), [64]);
    server.answers.push(ndjsonResponse(first, 'cur_first'), ndjsonResponse(second, 'cur_second'));

    const stream = api.export({ types: ['meeting'] });
    const got = await collect(stream);

    expect(got).toEqual([meeting(1), meeting(2), meeting(3), meeting(4)]);
    expect(stream.feedCursor).toBe('cur_first');
    expect(stream.trailer).toEqual(trailer(4, 'cur_second'));
    expect(stream.requests).toBe(2);
    expect(stream.lastId).toBe('mtg_4');
    expect(server.apiRequests.map((s) => Object.fromEntries(s.url.searchParams))).toEqual([
      { types: 'meeting' },
      { types: 'meeting', after: 'mtg_2' },
    ]);
  });

  it('a stream cut by a network error is resumed the same way', async () => {
    const { api, server } = harness();
    const first = body(ndjson(meeting(1)), [5], true);
    const second = body(ndjson(meeting(2), trailer(2, null)), [7]);
    server.answers.push(ndjsonResponse(first, 'cur_a'), ndjsonResponse(second, null));

    const stream = api.export({ types: ['meeting'] });
    await expect(collect(stream)).resolves.toEqual([meeting(1), meeting(2)]);

    expect(stream.feedCursor).toBe('cur_a');
    expect(server.apiRequests.map((s) => s.url.searchParams.get('after'))).toEqual([null, 'mtg_1']);
  });

  it('a stream opened with after= takes no Feed-Cursor (its snapshot is newer than the first stream\'s), needs none, and ignores one an older server sends', async () => {
    const { api, server } = harness();
    // The service names no cursor on a resumed stream; an older one named a newer one, which would skip changes.
    server.answers.push(
      ndjsonResponse(body(ndjson(meeting(1), trailer(1, null)), [9]), null),
      ndjsonResponse(body(ndjson(meeting(1), trailer(1, 'cur_newer')), [9]), 'cur_newer'),
    );
    for (const _ of [1, 2]) {
      const stream = api.export({ types: ['meeting'] }, { after: 'mtg_0' });
      await expect(collect(stream)).resolves.toEqual([meeting(1)]);
      expect(stream.feedCursor).toBeNull();
      expect(stream.trailer).toMatchObject({ object: 'export', records: { meeting: 1 } });
    }
    expect(server.apiRequests.map((s) => s.url.searchParams.get('after'))).toEqual(['mtg_0', 'mtg_0']);
  });

  it('with resume: false a cut throws ApiError EXPORT_CUT after the records it had', async () => {
    const { api, server } = harness();
    server.answers.push(ndjsonResponse(body(ndjson(meeting(1), meeting(2)), [9]), 'cur_a'));

    const stream = api.export({ types: ['meeting'] }, { resume: false });
    const got: unknown[] = [];
    const error = await rejection(
      (async () => {
        for await (const record of stream) got.push(record);
      })(),
    );

    expect(got).toEqual([meeting(1), meeting(2)]);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, code: 'EXPORT_CUT' });
    expect((error as ApiError).detail).toContain('after=mtg_2');
    expect(stream.trailer).toBeNull();
    expect(server.apiRequests).toHaveLength(1);
  });

  it('gives up with EXPORT_CUT after maxResumes cuts in a row without a record', async () => {
    const { api, server } = harness();
    server.answers.push(
      ndjsonResponse(body(ndjson(meeting(1)), [4]), 'cur_a'),
      ndjsonResponse(body('', [4]), 'cur_b'),
      ndjsonResponse(body('', [4]), 'cur_c'),
      ndjsonResponse(body(ndjson(trailer(1, 'x')), [4]), 'cur_d'),
    );

    await expect(collect(api.export({}, { maxResumes: 2 }))).rejects.toMatchObject({ code: 'EXPORT_CUT' });
    expect(server.apiRequests).toHaveLength(3);
  });

  it('pulls the body lazily: one record taken reads only the first chunks', async () => {
    const { api, server } = harness();
    const lines = Array.from({ length: 1000 }, (_, i) => meeting(i + 1));
    const text = ndjson(...lines, trailer(1000, 'cur'));
    const lineLength = `${JSON.stringify(lines[0])}\n`.length;
    const fake = body(text, [lineLength]); // about one line a chunk
    server.answers.push(ndjsonResponse(fake, 'cur'));

    const iterator = api.export()[Symbol.asyncIterator]();
    const first = await iterator.next();
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));

    expect(first.value).toEqual(meeting(1));
    expect(fake.pulls()).toBeLessThanOrEqual(3);
    expect(fake.chunks.length).toBeLessThanOrEqual(3);

    await iterator.next();
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(fake.pulls()).toBeLessThanOrEqual(4);

    await iterator.return(undefined);
    expect(fake.cancelled()).toBe(true);
    expect(server.apiRequests).toHaveLength(1);
  });

  it('a line that is not JSON throws INVALID_RESPONSE', async () => {
    const { api, server } = harness();
    server.answers.push(ndjsonResponse(body(`${ndjson(meeting(1))}not json\n`, [100]), 'cur'));

    await expect(collect(api.export())).rejects.toMatchObject({ status: 0, code: 'INVALID_RESPONSE' });
  });

  it('is iterated once', async () => {
    const { api, server } = harness();
    server.answers.push(ndjsonResponse(body(ndjson(trailer(0, 'cur')), [100]), 'cur'));

    const stream = api.export();
    await expect(collect(stream)).resolves.toEqual([]);
    await expect(collect(stream)).rejects.toThrow(TypeError);
    expect(server.apiRequests).toHaveLength(1);
  });
});
