/**
 * A counting semaphore: at most `limit` functions run at once; the rest wait in order. The limit can
 * change while it works (a worker's part of a run shared with others): raised, the waiting start at
 * once; lowered, the running end as they do and no new one starts until fewer than the limit run.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private max: number) {}

  get limit(): number {
    return this.max;
  }

  /** the functions running now */
  get running(): number {
    return this.active;
  }

  setLimit(limit: number): void {
    this.max = limit;
    this.drain();
  }

  // a freed place goes to the first waiting (it is counted here, before it resumes, so a caller that
  // comes meanwhile cannot take it too)
  private drain(): void {
    while (this.active < this.max && this.waiting.length > 0) {
      this.active++;
      this.waiting.shift()?.();
    }
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.max && this.waiting.length === 0) this.active++;
    else await new Promise<void>((r) => this.waiting.push(r));
    try {
      return await fn();
    } finally {
      this.active--;
      this.drain();
    }
  }
}
