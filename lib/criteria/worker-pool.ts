import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { readEnv } from "../env/registry";
import { JuryError } from "../errors";
import type { CaseInput, DeterministicResult } from "./definition";
import type { LogicReply, LogicRequest } from "./logic-worker";

export const CRITERIA_WORKER_FILE = "criteria-worker.mjs";
export const DEFAULT_DETERMINISTIC_TIMEOUT_MS = 1000;
/** Loading the bundle is not the criterion's time: a fresh worker gets this long to say it is ready. */
const STARTUP_LIMIT_MS = 15_000;

/**
 * A file of dist/ (built by `npm run build:cli`): beside this module when it runs from a bundle in
 * dist/ (the CLI), else under the working directory (the Next server, tests).
 */
export function distFile(name: string): string {
  let here: string | undefined;
  try {
    here = path.dirname(fileURLToPath(import.meta.url));
  } catch {}
  if (here && path.basename(here) === "dist") return path.join(here, name);
  return path.join(process.cwd(), "dist", name);
}

/** dist/criteria-worker.mjs: the worker bundle holding the project's deterministic criteria. */
export const projectLogicWorker = (): string => distFile(CRITERIA_WORKER_FILE);

/** JURY_DETERMINISTIC_TIMEOUT_MS: how long one deterministic criterion may run on one case. */
export function deterministicTimeoutMs(env: Record<string, string | undefined> = process.env): number {
  return readEnv("JURY_DETERMINISTIC_TIMEOUT_MS", env);
}

export type LogicTask = {
  criterionId: string;
  /** the name of the function logic.ts exports */
  fn: string;
  output: string;
  input: CaseInput;
  params: Record<string, unknown>;
};

type Job = {
  request: LogicRequest;
  resolve: (r: DeterministicResult) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
};

/**
 * Runs deterministic criteria in one worker thread, one task at a time (the others queue), each
 * under a time limit: a task that overruns it has its worker terminated (a regex or loop that never
 * returns cannot be stopped any other way) and fails with a timeout error; the next task gets a
 * fresh worker. The worker starts on the first task, and is unref'd while idle so a forgotten pool
 * never keeps a process alive; close() ends it.
 */
export class LogicPool {
  private worker?: Worker;
  private starting?: Promise<Worker>;
  private queue: Job[] = [];
  /** the task being run; its timer starts once the worker is ready */
  private current?: { job: Job; timer?: NodeJS.Timeout };
  private nextId = 1;
  private closed = false;
  private idleTimer?: NodeJS.Timeout;
  /** how many workers this pool has started (each costs a thread's start-up and about 11 MiB) */
  workersStarted = 0;

  constructor(
    private readonly opts: {
      /** the worker bundle (projectLogicWorker() for the project's criteria) */
      script: string;
      timeoutMs?: number;
      /** an idle worker is ended after this long (the next task starts a fresh one); default: kept */
      idleMs?: number;
    },
  ) {}

  get timeoutMs(): number {
    return this.opts.timeoutMs ?? DEFAULT_DETERMINISTIC_TIMEOUT_MS;
  }

  /** The criterion's result, or a rejection: its error, the timeout, a missing bundle, or `signal`'s abort. */
  run(task: LogicTask, signal?: AbortSignal): Promise<DeterministicResult> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new JuryError("pool_closed", "the criteria worker pool is closed"));
      if (signal?.aborted) return reject(signal.reason);
      const job: Job = { request: { id: this.nextId++, ...task }, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => this.abort(job);
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /** Ends the worker (even mid-task) and fails whatever is still queued. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const err = new JuryError("pool_closed", "the criteria worker pool is closed");
    for (const job of this.queue.splice(0)) this.settle(job, () => job.reject(err));
    if (this.current) {
      const { job, timer } = this.current;
      clearTimeout(timer);
      this.current = undefined;
      this.settle(job, () => job.reject(err));
    }
    await this.discardWorker();
  }

  private pump(): void {
    if (this.current || this.closed) return;
    const job = this.queue.shift();
    if (!job) {
      this.worker?.unref();
      if (this.opts.idleMs !== undefined && this.worker) {
        clearTimeout(this.idleTimer);
        this.idleTimer = setTimeout(() => {
          if (!this.current && this.queue.length === 0) void this.discardWorker();
        }, this.opts.idleMs);
        this.idleTimer.unref();
      }
      return;
    }
    clearTimeout(this.idleTimer);
    this.current = { job };
    this.startWorker().then(
      (worker) => {
        if (this.current?.job !== job) return; // aborted or closed while the worker started
        worker.ref(); // a task in flight keeps the process alive until it ends
        this.current.timer = setTimeout(() => {
          this.fail(
            job,
            new JuryError(
              "deterministic_timeout",
              `deterministic criterion ${job.request.criterionId} did not finish within ${this.timeoutMs} ms`,
            ),
            true,
          );
        }, this.timeoutMs);
        worker.postMessage(job.request);
      },
      (err) => {
        if (this.current?.job === job) this.fail(job, err, true);
      },
    );
  }

  private startWorker(): Promise<Worker> {
    if (this.worker) return Promise.resolve(this.worker);
    if (this.starting) return this.starting;
    const script = this.opts.script;
    const starting = new Promise<Worker>((resolve, reject) => {
      // no fallback to this thread: that is what the worker is for
      if (!fs.existsSync(script))
        return reject(
          new JuryError(
            "worker_missing",
            `the criteria worker ${script} is missing: run npm run build:cli (or npm run build)`,
          ),
        );
      let ready = false;
      const worker = new Worker(script, { resourceLimits: { maxOldGenerationSizeMb: 512 } });
      this.workersStarted++;
      worker.unref(); // ref'd only while it runs a task (during startup the timer below holds the process)
      const startup = setTimeout(() => {
        void worker.terminate();
        reject(new JuryError("worker_start", `the criteria worker ${script} did not start within 15 s`));
      }, STARTUP_LIMIT_MS);
      worker.on("message", (m: LogicReply) => {
        if (m.type === "ready") {
          ready = true;
          clearTimeout(startup);
          if (this.closed) {
            void worker.terminate();
            return reject(new JuryError("pool_closed", "the criteria worker pool is closed"));
          }
          this.worker = worker;
          resolve(worker);
          return;
        }
        const cur = this.current;
        if (!cur || cur.job.request.id !== m.id) return; // the answer of a task that already ended
        if (m.type === "result") this.succeed(cur.job, { score: m.score, details: m.details });
        else this.fail(cur.job, new JuryError("logic_error", m.message), false);
      });
      worker.on("error", (err) => {
        clearTimeout(startup);
        if (!ready)
          return reject(
            new JuryError("worker_start", `the criteria worker ${script} failed: ${err.message}`),
          );
        if (this.worker === worker && this.current)
          this.fail(this.current.job, new JuryError("logic_error", err.message), true);
      });
      worker.on("exit", (code) => {
        clearTimeout(startup);
        if (!ready)
          return reject(new JuryError("worker_start", `the criteria worker ${script} exited (code ${code})`));
        if (this.worker !== worker) return; // terminated by us
        this.worker = undefined;
        if (this.current)
          this.fail(
            this.current.job,
            new JuryError("logic_error", `the criteria worker exited (code ${code}) while running it`),
            false,
          );
      });
    });
    this.starting = starting;
    const clear = () => {
      if (this.starting === starting) this.starting = undefined;
    };
    starting.then(clear, clear);
    return starting;
  }

  private succeed(job: Job, r: DeterministicResult): void {
    if (this.current?.job !== job) return;
    clearTimeout(this.current.timer);
    this.current = undefined;
    this.settle(job, () => job.resolve(r));
    this.pump();
  }

  /** Ends the current job with `err`; `replace` terminates its worker (stuck, or broken). */
  private fail(job: Job, err: unknown, replace: boolean): void {
    if (this.current?.job !== job) return;
    clearTimeout(this.current.timer);
    this.current = undefined;
    if (replace) void this.discardWorker();
    this.settle(job, () => job.reject(err));
    this.pump();
  }

  private abort(job: Job): void {
    const i = this.queue.indexOf(job);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.settle(job, () => job.reject(job.signal?.reason));
    } else this.fail(job, job.signal?.reason, true);
  }

  private settle(job: Job, done: () => void): void {
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    done();
  }

  private async discardWorker(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}

/** How long the shared pool keeps an idle worker: runs that follow each other do not start one each. */
const SHARED_IDLE_MS = 60_000;
const shared = new Map<string, LogicPool>();

/**
 * The process's pool for a worker bundle and time limit, shared by the runs of this process (the
 * dashboard server runs many): its worker starts once and is ended after a minute without work.
 * Never close it; an aborted or stuck task replaces only the worker.
 */
export function sharedLogicPool(script: string, timeoutMs: number): LogicPool {
  const key = `${script}\u0000${timeoutMs}`;
  let pool = shared.get(key);
  if (!pool) {
    pool = new LogicPool({ script, timeoutMs, idleMs: SHARED_IDLE_MS });
    shared.set(key, pool);
  }
  return pool;
}
