/** A read refused because its company's turn did not come in time (or too many already waited for it). */
export class ShareTimeout extends Error {}

interface Turns {
  active: number;
  waiting: Array<{ grant: () => void }>;
}

/**
 * At most `share` reads of one company at once; the company's further reads wait behind its own,
 * in arrival order, never in front of another company's (whose turns are counted apart). A read
 * that waited `waitMs`, or arrived when `maxWaiting` of its company's already waited, is refused.
 *
 * Written here rather than taken from a library: none in package.json limits per key, and pg's
 * pool queues every caller in one line, which is exactly what lets one company take every
 * connection.
 */
export class CompanyShare {
  private readonly turns = new Map<string, Turns>();

  constructor(
    readonly share: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(company: string, waitMs: number, work: () => Promise<T>): Promise<T> {
    await this.take(company, waitMs);
    try {
      return await work();
    } finally {
      this.give(company);
    }
  }

  /** Reads of `company` running now (for tests and metrics). */
  active(company: string): number {
    return this.turns.get(company)?.active ?? 0;
  }

  private take(company: string, waitMs: number): Promise<void> {
    const turns = this.turns.get(company) ?? { active: 0, waiting: [] };
    this.turns.set(company, turns);
    if (turns.active < this.share) {
      turns.active += 1;
      return Promise.resolve();
    }
    if (turns.waiting.length >= this.maxWaiting) return Promise.reject(new ShareTimeout('too many reads of this company waiting'));
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        turns.waiting.splice(turns.waiting.indexOf(waiter), 1);
        reject(new ShareTimeout(`no turn within ${waitMs} ms`));
      }, waitMs);
      turns.waiting.push(waiter);
    });
  }

  /** The finished read's turn passes to its company's next waiting read, or is given back. */
  private give(company: string): void {
    const turns = this.turns.get(company);
    if (!turns) return;
    const next = turns.waiting.shift();
    if (next) return next.grant();
    turns.active -= 1;
    if (turns.active === 0) this.turns.delete(company);
  }
}
