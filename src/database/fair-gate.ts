/**
 * Why a waiter gave up: the same failure pg's pool reports when no connection comes in time (its
 * message, and SQLSTATE 53300 too_many_connections), so every caller answers it as it answers an
 * exhausted pool: 503 SERVICE_UNAVAILABLE.
 */
export class GateTimeoutError extends Error {
  readonly code = '53300';

  constructor(reason: 'timeout' | 'aborted') {
    super(
      reason === 'timeout'
        ? 'timeout exceeded when trying to connect (waiting for a fair share of the connection pool)'
        : 'the request went away while waiting for a connection',
    );
    this.name = 'GateTimeoutError';
  }
}

interface Waiter {
  grant: () => void;
}

/** What the gate holds now, for the metrics. */
export interface GateStats {
  held: number;
  waiting: number;
  /** Lanes holding their whole share (a lane's further requests wait). */
  lanesAtShare: number;
  /** Waiters that gave up at their timeout, since the start. */
  timedOut: number;
}

/**
 * Keyed fair queuing in front of a connection pool: at most `capacity` slots held at once, at
 * most `share` of them by one lane (a company, or the token endpoint's lane). A lane's further
 * requests wait in its own queue (first come, first served within it); a freed slot goes to the
 * lane that waited longest since it was last served (round robin across the lanes waiting), so
 * a company's heavy requests queue behind each other, not in front of other companies'. A waiter
 * gives up after `timeoutMs` (or when its request goes away) and never holds a slot afterwards.
 *
 * Written here rather than taken from a library: p-limit (in node_modules through jest) and the
 * usual limiters (p-queue, bottleneck) bound one queue, not a share per key with round robin
 * between the keys; the whole mechanism is the two maps below.
 */
export class FairGate {
  private held = 0;
  private timedOut = 0;
  private readonly heldBy = new Map<string, number>();
  /** Lanes with waiters, in round-robin order: a lane served goes to the back (Map order is insertion order). */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(
    readonly capacity: number,
    readonly share: number,
  ) {
    if (!(capacity >= 1 && share >= 1)) throw new Error('a fair gate needs a capacity and a share of at least 1');
  }

  /** A slot for `lane`: resolves to its release (idempotent), or rejects with GateTimeoutError. */
  acquire(lane: string, timeoutMs: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new GateTimeoutError('aborted'));
    if (!this.queues.has(lane) && this.admits(lane)) return Promise.resolve(this.take(lane));
    return new Promise((resolve, reject) => {
      const leave = (reason: 'timeout' | 'aborted') => {
        const queue = this.queues.get(lane);
        const at = queue?.indexOf(waiter) ?? -1;
        if (!queue || at < 0) return;
        queue.splice(at, 1);
        if (!queue.length) this.queues.delete(lane);
        settle();
        if (reason === 'timeout') this.timedOut++;
        reject(new GateTimeoutError(reason));
      };
      const onAbort = () => leave('aborted');
      const timer = setTimeout(() => leave('timeout'), timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        grant: () => {
          settle();
          resolve(this.take(lane));
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.queues.get(lane);
      if (queue) queue.push(waiter);
      else this.queues.set(lane, [waiter]);
    });
  }

  /** Runs `work` holding a slot of `lane`, released however the work ends. */
  async run<T>(lane: string, timeoutMs: number, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(lane, timeoutMs, signal);
    try {
      return await work();
    } finally {
      release();
    }
  }

  stats(): GateStats {
    let waiting = 0;
    for (const queue of this.queues.values()) waiting += queue.length;
    let lanesAtShare = 0;
    for (const count of this.heldBy.values()) if (count >= this.share) lanesAtShare++;
    return { held: this.held, waiting, lanesAtShare, timedOut: this.timedOut };
  }

  private admits(lane: string): boolean {
    return this.held < this.capacity && (this.heldBy.get(lane) ?? 0) < this.share;
  }

  private take(lane: string): () => void {
    this.held++;
    this.heldBy.set(lane, (this.heldBy.get(lane) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      const left = (this.heldBy.get(lane) ?? 1) - 1;
      if (left) this.heldBy.set(lane, left);
      else this.heldBy.delete(lane);
      this.dispatch();
    };
  }

  /** Hands free slots to the waiting lanes in round-robin order, skipping lanes at their share. */
  private dispatch(): void {
    while (this.held < this.capacity) {
      let next: string | undefined;
      for (const lane of this.queues.keys()) {
        if (this.admits(lane)) {
          next = lane;
          break;
        }
      }
      if (next === undefined) return;
      const queue = this.queues.get(next)!;
      const waiter = queue.shift()!;
      this.queues.delete(next);
      if (queue.length) this.queues.set(next, queue);
      waiter.grant();
    }
  }
}

/** A company's share of a pool of `poolSize`: `fraction` of it rounded up, at least 1. */
export function companyShare(poolSize: number, fraction: number): number {
  return Math.max(1, Math.ceil(poolSize * fraction - 1e-9));
}
