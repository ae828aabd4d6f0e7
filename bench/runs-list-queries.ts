// The runs list's two aggregate queries at scale (issue 15): getProgressByRun and
// getMedianLatencyByJudge, timed beside the versions they replaced (which read every sample of every
// run). Builds a database of several finished runs and one running run without calling any model
// (plan-run + recordSamples), about `--samples` samples in all, or reuses `--db=FILE`.
//
//   npx tsx bench/runs-list-queries.ts [--samples=100000] [--db=FILE] [--reps=9] [--json]
//     [--migrations=DIR]
//
// Prints the median of `--reps` calls of each (after one warm-up), in ms. The old queries use the new
// indexes where they can; for the figures of before, open a copy of the database with a folder holding
// migrations 0000-0008 only (--migrations=DIR): the new functions then fail, the old ones are timed.
import fs from "node:fs";
import path from "node:path";
import { createDb, type SqliteDb } from "@/db/client";
import {
  getMedianLatencyByJudge,
  getProgressByRun,
  getRunTasks,
  recordSamples,
  requeueSamples,
  type SampleRecord,
  setRunStatus,
} from "@/db/queries/runs";
import { getOrInsert } from "@/lib/map-utils";
import { createRun } from "@/lib/runs/plan-run";
import { loadSuite } from "@/lib/suites/load-suite";
import { tempDir, testRegistry, testSuite } from "@/lib/testing/fixtures";

const args = process.argv.slice(2);
const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SAMPLES = Number((opt("samples") ?? "100000").replace(/_/g, ""));
const REPS = Number(opt("reps") ?? 9);
const json = args.includes("--json");
const log = (msg: string) => process.stderr.write(`${msg}\n`);

const RUNS = 5; // finished ones; a sixth is left running, half done
const PER_CASE = 21; // 2 judges × 2 LLM criteria × N=5, and one deterministic check

/** The queries as they were before issue 15: every sample of every run, each time. */
function legacyProgressByRun(db: SqliteDb) {
  const rows = db.$client
    .prepare(
      `select t.run_id as runId,
              sum(case when t.status = 'done' then 1 else 0 end) as done,
              sum(case when t.status = 'error' then 1 else 0 end) as errors,
              coalesce((select sum(cost_usd) from samples s where s.run_id = t.run_id), 0) as costUsd
       from tasks t group by t.run_id`,
    )
    .all() as { runId: string; done: number; errors: number; costUsd: number }[];
  return new Map(rows.map((r) => [r.runId, r]));
}

function legacyMedianLatencyByJudge(db: SqliteDb): Record<string, number> {
  const rows = db.$client
    .prepare(
      "select judge, latency_ms as ms from samples where cached = 0 and error is null and judge != 'deterministic' order by judge, latency_ms",
    )
    .all() as { judge: string; ms: number }[];
  const by = new Map<string, number[]>();
  for (const r of rows) getOrInsert(by, r.judge, () => []).push(r.ms);
  return Object.fromEntries([...by].map(([j, xs]) => [j, xs[Math.floor(xs.length / 2)]]));
}

/** Answers a run's pending tasks (the first `share` of them) as a judge would: 2% fail, 10% cached. */
function answer(db: SqliteDb, runId: string, share = 1, seed = 1) {
  let x = seed;
  const rand = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const pending = getRunTasks(db, { runId }).filter((t) => t.status === "pending");
  const todo = pending.slice(0, Math.floor(pending.length * share));
  for (let i = 0; i < todo.length; i += 500) {
    const batch: SampleRecord[] = todo.slice(i, i + 500).map((t) => {
      const det = t.judge === "deterministic";
      const failed = !det && rand() < 0.02;
      const cached = !det && !failed && rand() < 0.1;
      const score = failed ? null : 1 + Math.floor(rand() * 10);
      return {
        sample: {
          taskId: t.id,
          runId,
          caseId: t.caseId,
          criterionId: t.criterionId,
          judge: t.judge,
          sampleIndex: t.sampleIndex,
          score,
          reasoning: failed ? null : `The answer is mostly right; it misses one detail (${t.key}).`,
          rawText: failed
            ? null
            : JSON.stringify({ score, reasoning: `The answer is mostly right (${t.key}).` }),
          latencyMs: det || cached ? 0 : 200 + Math.floor(rand() * 1800),
          inputTokens: det ? 0 : 300,
          outputTokens: det ? 0 : 40,
          costUsd: det || cached ? 0 : 0.00038 + rand() * 1e-5,
          attempts: failed ? 3 : 1,
          cached,
          error: failed ? "scripted failure: 500" : null,
        },
      };
    });
    recordSamples(db, batch);
  }
}

async function build(file: string) {
  const db = createDb(file);
  const { registry } = testRegistry();
  const cases = Math.max(1, Math.round(SAMPLES / PER_CASE / (RUNS + 0.5)));
  const suite = loadSuite(testSuite(cases));
  const options = { judges: ["local:a", "local:b"], n: 5, temperature: 0, concurrency: 32, noCache: false };
  for (let r = 0; r < RUNS; r++) {
    const id = await createRun(db, suite, registry, options);
    setRunStatus(db, { id, status: "running" });
    answer(db, id, 1, r + 1);
    if (r === 0) {
      // re-sample a few items: their old samples stay, superseded, and count in the run's cost
      const ids = db.$client
        .prepare("select id from samples where run_id = ? and judge != 'deterministic' limit 200")
        .pluck()
        .all(id) as number[];
      setRunStatus(db, { id, status: "done" });
      requeueSamples(db, { runId: id, sampleIds: ids, reason: "resampled", fresh: true });
      setRunStatus(db, { id, status: "running" });
      answer(db, id, 1, 99);
    }
    setRunStatus(db, { id, status: "done_with_failures" });
    log(`run ${r + 1}/${RUNS} stored`);
  }
  const live = await createRun(db, suite, registry, options);
  setRunStatus(db, { id: live, status: "running" });
  answer(db, live, 0.5, 7);
  db.$client.pragma("wal_checkpoint(TRUNCATE)");
  return db;
}

function time<T>(fn: () => T): number {
  fn();
  const xs: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t = performance.now();
    fn();
    xs.push(performance.now() - t);
  }
  xs.sort((a, b) => a - b);
  return Math.round(xs[Math.floor(xs.length / 2)] * 100) / 100;
}

/** The new functions' time, or null when the database lacks migration 0009 (--migrations). */
function maybe<T>(fn: () => T): number | null {
  try {
    return time(fn);
  } catch {
    return null;
  }
}

async function main() {
  const file = opt("db") ?? path.join(tempDir("jury-runs-list-"), "jury.db");
  const migrationsFolder = opt("migrations");
  const db = fs.existsSync(file) ? createDb(file, { migrationsFolder }) : await build(file);
  const samples = db.$client.prepare("select count(*) from samples").pluck().get() as number;
  const runs = db.$client.prepare("select count(*) from runs").pluck().get() as number;
  const out = {
    db: file,
    samples,
    runs,
    ms: {
      progressByRun: {
        before: time(() => legacyProgressByRun(db)),
        after: maybe(() => getProgressByRun(db)),
      },
      medianLatencyByJudge: {
        before: time(() => legacyMedianLatencyByJudge(db)),
        after: maybe(() => getMedianLatencyByJudge(db)),
      },
    },
  };
  db.$client.close();
  if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
  else {
    log(`${file}: ${samples.toLocaleString()} samples in ${runs} runs; median of ${REPS}, ms`);
    for (const [k, v] of Object.entries(out.ms))
      log(`  ${k.padEnd(22)} before ${v.before}  after ${v.after}`);
  }
}

main().catch((err) => {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
