import { Logger } from '@nestjs/common';
import type { Response } from 'express';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { PART_CHARS } from '../common/http/json-text';

/** How an export ended. */
export const EXPORT_OUTCOMES = ['complete', 'client_closed', 'idle_timeout', 'max_duration', 'too_slow', 'shutdown', 'error'] as const;
export type ExportOutcome = (typeof EXPORT_OUTCOMES)[number];

/** The status and headers an export's answer starts with (all of a `HEAD`'s). */
export function writeNdjsonHead(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'application/x-ndjson');
  res.setHeader('Cache-Control', 'no-store');
}

/** Why a stream stopped before its end. */
export class Cut extends Error {
  constructor(readonly outcome: ExportOutcome) {
    super(outcome);
  }
}

/** The response a stream writes to: an HTTP response, or in a spec a writable with a socket of its own. */
export type StreamTarget = Writable & { readonly socket: Socket | null };

/** How long a stream may take (AppConfig's `exports`, and the idle cut in ms). */
export interface StreamBounds {
  idleMs: number;
  maxSeconds: number;
  minBytesPerMinute: number;
  rateWindowSeconds: number;
}

/**
 * One NDJSON stream to one reader: writes lines with back-pressure, and cuts itself when its
 * reader goes, takes nothing for `idleMs`, runs `maxSeconds`, or takes too little in a window
 * (`limitTime`), or when its owner calls `cut` (a shutdown). A cut is a value checked between
 * steps (`goOn`), and wakes the one wait for the reader there may be.
 * (No promise lives as long as the stream: racing each step against one kept every step's
 * result reachable until the end, 2.8 GB over a 1,000,000-record export.)
 */
export class NdjsonStream {
  private readonly logger = new Logger('Export');
  /** Bytes of NDJSON written so far (before compression). */
  bytes = 0;
  /** How the stream ended: `complete` until `fail` says otherwise. */
  outcome: ExportOutcome = 'complete';
  private cutFor: ExportOutcome | undefined;
  private wake: ((cut: Cut) => void) | undefined;
  private drained: (() => void) | undefined;
  /** Milliseconds spent waiting for the reader to take what was written (back-pressure), ended waits only. */
  private heldMs = 0;
  /** When the current wait for the reader began, while there is one. */
  private heldSince: number | undefined;
  private readonly timers: { stop(): void };

  constructor(
    private readonly res: StreamTarget,
    private readonly bounds: StreamBounds,
  ) {
    res.once('close', () => {
      if (!res.writableFinished) this.cut('client_closed');
    });
    // A client gone before this listener (while its connection, slot or audit row were taken)
    // closed the response unheard: cut now, not after EXPORT_IDLE_SECONDS of writes that never drain.
    if (res.destroyed || res.socket?.destroyed !== false) this.cut('client_closed');
    this.timers = this.limitTime();
    // One 'drain' listener for the whole stream: compression moves listeners added to the
    // response onto its encoder, where removing them later does not reach.
    res.on('drain', () => this.drained?.());
  }

  /** Stops the stream at its next step (the first reason given wins), waking a wait for the reader. */
  cut(why: ExportOutcome): void {
    this.cutFor ??= why;
    this.wake?.(new Cut(why));
  }

  /** Throws the cut, once there is one: called between steps. */
  goOn(): void {
    if (this.cutFor) throw new Cut(this.cutFor);
  }

  /**
   * Writes `lines` (each with its newline) in parts under PART_CHARS, corked into one write to
   * the socket: no string of the stream reaches V8's large-object space, which only a full
   * collection frees. Resolves once the client took them (back-pressure), or rejects on a cut.
   */
  async write(lines: readonly string[]): Promise<void> {
    const res = this.res;
    let written = 0;
    let part = '';
    let flowing = true;
    res.cork();
    for (const line of lines) {
      if (part.length + line.length + 1 > PART_CHARS && part) {
        flowing = res.write(part);
        written += Buffer.byteLength(part);
        part = '';
      }
      part += `${line}\n`;
    }
    if (part) {
      flowing = res.write(part);
      written += Buffer.byteLength(part);
    }
    res.uncork();
    this.bytes += written;
    if (flowing) return;
    // Back-pressure: nothing more is written until the client took this (the batch after it is read meanwhile).
    this.goOn();
    let timer: NodeJS.Timeout | undefined;
    const since = (this.heldSince = Date.now());
    try {
      await new Promise<void>((resolve, reject) => {
        this.drained = resolve;
        this.wake = reject;
        timer = setTimeout(() => reject(new Cut('idle_timeout')), this.bounds.idleMs);
      });
    } finally {
      this.heldMs += Date.now() - since;
      this.heldSince = undefined;
      this.drained = this.wake = undefined;
      clearTimeout(timer);
    }
  }

  /** Writes the last line and ends the response, unless the stream was cut. */
  async end(lastLine: string): Promise<void> {
    this.goOn();
    await this.write([lastLine]);
    this.res.end();
  }

  /**
   * Ends the stream for `error` (a Cut, or anything else: `error`) without its last line: the
   * client sees no trailer and resumes with after=. Whatever still runs for it stops at its next step.
   */
  fail(error: unknown): void {
    this.outcome = error instanceof Cut ? error.outcome : 'error';
    if (this.outcome === 'error') this.logger.error(`export failed: ${(error as Error).message}`);
    this.cutFor ??= this.outcome;
    this.res.destroy();
  }

  /** Milliseconds this stream waited for its reader so far, the current wait included. */
  private held(): number {
    return this.heldMs + (this.heldSince === undefined ? 0 : Date.now() - this.heldSince);
  }

  /** Stops the stream's clocks: called once it ended. */
  stop(): void {
    this.timers.stop();
  }

  /**
   * The stream's bounds in time, beside the idle cut: at EXPORT_MAX_SECONDS it is cut
   * (`max_duration`); and at the end of each window of EXPORT_RATE_WINDOW_SECONDS but the first
   * (the first fills the sockets' buffers, and the snapshot's first batches may be slow), a reader
   * that accepted fewer bytes in that window than EXPORT_MIN_BYTES_PER_MINUTE scaled to it is cut
   * (`too_slow`), if the reader is what held the stream: it waited for the reader (back-pressure)
   * for at least half the window. A stream slow on this side (a busy database or CPU) leaves the
   * socket's buffers empty and is not its reader's fault. Accepted: taken by the kernel from this process, on the wire (compressed when
   * the stream is), so a reader on gzip must take as many bytes as one without, and a trickle
   * that dodges the idle cut still ends. Either way the client resumes with `after=`.
   */
  private limitTime(): { stop(): void } {
    const { maxSeconds, minBytesPerMinute, rateWindowSeconds } = this.bounds;
    const deadline = setTimeout(() => this.cut('max_duration'), maxSeconds * 1000);
    const socket = this.res.socket;
    let window: NodeJS.Timeout | undefined;
    if (minBytesPerMinute > 0 && socket) {
      const minimum = (minBytesPerMinute * rateWindowSeconds) / 60;
      const windowMs = rateWindowSeconds * 1000;
      let mark = acceptedBy(socket);
      let heldMark = this.held();
      let first = true;
      window = setInterval(() => {
        const accepted = acceptedBy(socket);
        const held = this.held();
        if (!first && accepted - mark < minimum && held - heldMark >= windowMs / 2) this.cut('too_slow');
        first = false;
        mark = accepted;
        heldMark = held;
      }, windowMs);
    }
    return {
      stop: () => {
        clearTimeout(deadline);
        clearInterval(window);
      },
    };
  }
}

/**
 * Bytes the kernel took from this socket so far: `bytesWritten` counts what is still queued in
 * the socket's buffer and in libuv's write queue too, so both are taken off.
 */
function acceptedBy(socket: Socket): number {
  const queued = (socket as unknown as { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? 0;
  return socket.bytesWritten - socket.writableLength - queued;
}
