import { providerOf } from "@/db/queries/claim-tasks";
import type { Task } from "@/db/schema";

/** Calls or tasks in total and per provider. */
export type Counts = { total: number; providers: Record<string, number> };

/** Works one claimed task; calls `answered` once the model answered (its slot is free, its sample not yet stored). */
export type PerformTask = (t: Task, answered: () => void) => Promise<void>;

/** Groups claimed tasks before they start (prompt caching: one sample first, then the rest). */
export type GroupTasks = (tasks: Task[]) => ((start: (t: Task) => Promise<void>) => Promise<void>)[];

/**
 * A worker's claimed tasks while it works them: what it holds (claimed, calling a model, not yet
 * answered; a deterministic task takes no slot), what still runs (until its sample is stored), the
 * first failure, and a wait that ends when one of them answers or ends.
 */
export class ClaimedTasks {
  /** its claimed tasks that call a model and have not answered */
  readonly held: Counts = { total: 0, providers: {} };
  /** its tasks not yet ended (answered and stored) */
  readonly running = new Set<Promise<void>>();
  failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly perform: PerformTask,
    private readonly group: GroupTasks | undefined,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener("abort", this.woken, { once: true });
  }

  /** Ends the current wait (a task answered or ended, or the signal aborted). */
  readonly woken = () => {
    this.wake?.();
    this.wake = undefined;
  };

  /** Waits for one of its tasks to answer or end, or `ms`; then for the end of this turn of the event loop. */
  async idle(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
      if (this.signal.aborted) this.wake();
    });
    // the answers of this turn are stored at its end (the sample writer): claim after them
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  private hold(t: Task, by: 1 | -1): void {
    if (t.judge === "deterministic") return;
    const p = providerOf(t.judge);
    this.held.total += by;
    this.held.providers[p] = (this.held.providers[p] ?? 0) + by;
  }

  private start = (t: Task): Promise<void> => {
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      this.hold(t, -1);
      this.woken();
    };
    return this.perform(t, answer).then(answer, (error) => {
      this.failure ??= { error };
      answer();
    });
  };

  /** Starts claimed tasks (in their groups). */
  launch(tasks: Task[]): void {
    for (const t of tasks) this.hold(t, 1);
    const groups = this.group ? this.group(tasks) : tasks.map((t) => (f: (t: Task) => Promise<void>) => f(t));
    for (const g of groups) {
      // a task ends when its sample is stored: the last one's end may be what the loop waits for
      const p: Promise<void> = g(this.start).finally(() => {
        this.running.delete(p);
        this.woken();
      });
      this.running.add(p);
    }
  }

  /** Waits for every task started to end. */
  async settle(): Promise<void> {
    await Promise.all(this.running);
  }

  /** Stops listening to the signal. */
  close(): void {
    this.signal.removeEventListener("abort", this.woken);
  }
}
