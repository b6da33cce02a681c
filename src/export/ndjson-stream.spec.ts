import { Logger } from '@nestjs/common';
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { PART_CHARS } from '../common/http/json-text';
import { Cut, NdjsonStream, StreamBounds } from './ndjson-stream';

/**
 * A response whose client takes what was written only when told (`take`): until then every chunk
 * waits in its buffer, and `write` returns false once HIGH_WATER bytes wait, as a socket's does.
 * Its socket counts what the client took, as the kernel would.
 */
const HIGH_WATER = 1024;
class FakeResponse extends Writable {
  readonly chunks: string[] = [];
  readonly socket = { destroyed: false, bytesWritten: 0, writableLength: 0 } as unknown as Socket & { bytesWritten: number };
  private held: Array<() => void> = [];

  constructor() {
    super({ highWaterMark: HIGH_WATER, decodeStrings: false });
  }

  override _write(chunk: string, _encoding: string, done: () => void): void {
    this.chunks.push(chunk);
    this.held.push(() => {
      this.socket.bytesWritten += Buffer.byteLength(chunk);
      done();
    });
  }

  /** The client takes everything written so far. */
  take(): void {
    while (this.held.length) this.held.shift()!();
  }

  get text(): string {
    return this.chunks.join('');
  }
}

const bounds: StreamBounds = { idleMs: 60_000, maxSeconds: 900, minBytesPerMinute: 0, rateWindowSeconds: 60 };
/** 6,000 bytes a minute over windows of 1 second: 100 bytes a window. */
const rated: StreamBounds = { ...bounds, minBytesPerMinute: 6000, rateWindowSeconds: 1 };
/** A batch of lines that leaves more than HIGH_WATER bytes waiting: write() returns false. */
const big = ['x'.repeat(2 * HIGH_WATER)];

/** What a pending promise has come to so far. */
function settled<T>(promise: Promise<T>): { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } {
  const seen: { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } = { state: 'pending' };
  promise.then(
    () => (seen.state = 'resolved'),
    (error: unknown) => Object.assign(seen, { state: 'rejected', error }),
  );
  return seen;
}

/** Ends `stream` for whatever stopped `writing`, as the export does, and says how. */
async function outcomeOf(stream: NdjsonStream, writing: Promise<void>) {
  await writing.catch((error: unknown) => stream.fail(error));
  return stream.outcome;
}

describe('NdjsonStream', () => {
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('writes each line with its newline and counts the bytes; resolves at once while the client keeps up', async () => {
    const res = new FakeResponse();
    const stream = new NdjsonStream(res, bounds);
    await stream.write(['{"a":1}', '{"é":2}']);
    expect(res.text).toBe('{"a":1}\n{"é":2}\n');
    expect(stream.bytes).toBe(Buffer.byteLength('{"a":1}\n{"é":2}\n'));
    await stream.end('{"object":"export"}');
    res.take();
    await new Promise((resolve) => res.once('finish', resolve));
    expect(res.text.endsWith('{"object":"export"}\n')).toBe(true);
    expect(stream.outcome).toBe('complete');
    stream.stop();
  });

  it('writes a batch in parts under PART_CHARS each, every line whole', async () => {
    const res = new FakeResponse();
    const stream = new NdjsonStream(res, bounds);
    const line = 'y'.repeat(PART_CHARS / 4);
    const writing = stream.write(Array.from({ length: 10 }, () => line));
    res.take();
    await writing;
    expect(res.chunks.length).toBeGreaterThan(1);
    for (const chunk of res.chunks) expect(chunk.length).toBeLessThanOrEqual(PART_CHARS);
    expect(res.text).toBe(`${line}\n`.repeat(10));
    stream.stop();
  });

  describe('back-pressure', () => {
    it("waits for 'drain' when write() returns false: resolves only once the client took the lines", async () => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, bounds);
      const write = settled(stream.write(big));
      await jest.advanceTimersByTimeAsync(30_000);
      expect(write.state).toBe('pending');
      res.take();
      await jest.advanceTimersByTimeAsync(0);
      expect(write.state).toBe('resolved');
      stream.stop();
    });

    it('does not wait at all once the stream was cut: the cut is thrown instead', async () => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, bounds);
      stream.cut('shutdown');
      await expect(stream.write(big)).rejects.toEqual(new Cut('shutdown'));
      stream.stop();
    });
  });

  describe('cuts', () => {
    it('idle: a client that takes nothing for idleMs is cut as idle_timeout, the response destroyed', async () => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, { ...bounds, idleMs: 5000 });
      const writing = stream.write(big);
      const write = settled(writing);
      await jest.advanceTimersByTimeAsync(4999);
      expect(write.state).toBe('pending');
      await jest.advanceTimersByTimeAsync(1);
      expect(await outcomeOf(stream, writing)).toBe('idle_timeout');
      expect(res.destroyed).toBe(true);
      expect(() => stream.goOn()).toThrow(Cut); // a batch still being read stops at its next step
      stream.stop();
    });

    it.each([
      ['max_duration', 'at maxSeconds', { ...bounds, maxSeconds: 10 }, 9000],
      ['too_slow', 'when the client took fewer bytes in a window than the minimum (the first window aside)', rated, 1000],
    ] as const)('%s: cut %s, a wait for the client woken at once', async (outcome, _when, limits, notYetMs) => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, limits);
      const ending = outcomeOf(stream, stream.write(big)); // nothing taken meanwhile
      await jest.advanceTimersByTimeAsync(notYetMs);
      expect(() => stream.goOn()).not.toThrow();
      await jest.advanceTimersByTimeAsync(1000);
      expect(await ending).toBe(outcome);
      stream.stop();
    });

    it('too_slow: a client that takes enough in every window is never cut', async () => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, rated);
      for (let second = 0; second < 5; second++) {
        const writing = stream.write(big);
        res.take();
        await writing;
        await jest.advanceTimersByTimeAsync(1000);
      }
      expect(() => stream.goOn()).not.toThrow();
      stream.stop();
    });

    it('too_slow is the reader\'s: a stream this side writes slowly (nothing waiting for the client) is never cut', async () => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, rated);
      for (let second = 0; second < 5; second++) {
        await stream.write(['x']); // 2 bytes a second, under the minimum, all taken at once
        res.take();
        await jest.advanceTimersByTimeAsync(1000);
      }
      expect(() => stream.goOn()).not.toThrow();
      stream.stop();
    });

    it('too_slow: a reader that holds the stream for under half of a window is not cut for it', async () => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, rated);
      await jest.advanceTimersByTimeAsync(1000); // the first window
      await jest.advanceTimersByTimeAsync(600);
      const ending = outcomeOf(stream, stream.write(big)); // held for the window's last 400 ms
      await jest.advanceTimersByTimeAsync(400);
      expect(() => stream.goOn()).not.toThrow();
      await jest.advanceTimersByTimeAsync(1000); // held all the next window: cut
      expect(await ending).toBe('too_slow');
      stream.stop();
    });

    it('stop() ends the clocks: a stream that ended is never cut afterwards', async () => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, { ...rated, maxSeconds: 1 });
      stream.stop();
      await jest.advanceTimersByTimeAsync(5000);
      expect(() => stream.goOn()).not.toThrow();
    });

    it('client gone: a response closed before it finished cuts the stream as client_closed, waking the wait', async () => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, bounds);
      const writing = stream.write(big);
      res.destroy();
      expect(await outcomeOf(stream, writing)).toBe('client_closed');
      stream.stop();
    });

    it('client gone before the stream began (its socket already destroyed): cut at once', () => {
      const res = new FakeResponse();
      (res.socket as { destroyed: boolean }).destroyed = true;
      const stream = new NdjsonStream(res, bounds);
      expect(() => stream.goOn()).toThrow(new Cut('client_closed'));
      stream.stop();
    });

    it("shutdown: the owner's cut wakes the wait for the client, and the stream ends as shutdown, without its last line", async () => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, bounds);
      const writing = stream.write(big);
      stream.cut('shutdown');
      stream.cut('max_duration'); // the first reason stands
      expect(await outcomeOf(stream, writing)).toBe('shutdown');
      await expect(stream.end('{"object":"export"}')).rejects.toEqual(new Cut('shutdown'));
      expect(res.text).not.toContain('"object":"export"');
      expect(res.destroyed).toBe(true);
      stream.stop();
    });

    it('anything else ends it as error', () => {
      const res = new FakeResponse();
      const stream = new NdjsonStream(res, bounds);
      stream.fail(new Error('the database went away'));
      expect(stream.outcome).toBe('error');
      expect(res.destroyed).toBe(true);
      stream.stop();
    });
  });
});
