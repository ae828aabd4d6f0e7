import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "@/lib/runs/plan-run";
import { loadSuite } from "@/lib/suites/load-suite";
import { tempDb, tempDir, testRegistry, testSuite } from "@/lib/testing/fixtures";
import { createDb, type SqliteDb as Db, defaultMigrationsFolder } from "../client";
import {
  getMedianLatencyByJudge,
  getProgressByRun,
  getRunTasks,
  LATENCY_WINDOW,
  recordSamples,
  requeueSamples,
  type SampleRecord,
  setRunStatus,
} from "./runs";

// The runs list's aggregates as they were before migration 0009: every sample of every run, each time.
function legacyProgressByRun(db: Db) {
  const rows = db.$client
    .prepare(
      `select t.run_id as runId,
              sum(case when t.status = 'done' then 1 else 0 end) as done,
              sum(case when t.status = 'error' then 1 else 0 end) as errors,
              coalesce((select sum(cost_usd) from samples s where s.run_id = t.run_id), 0) as costUsd
       from tasks t group by t.run_id`,
    )
    .all() as { runId: string; done: number; errors: number; costUsd: number }[];
  return new Map(rows.map(({ runId, ...p }) => [runId, p]));
}

function legacyMedianLatencyByJudge(db: Db): Record<string, number> {
  const rows = db.$client
    .prepare(
      "select judge, latency_ms as ms from samples where cached = 0 and error is null and judge != 'deterministic' order by judge, latency_ms",
    )
    .all() as { judge: string; ms: number }[];
  const by = new Map<string, number[]>();
  for (const r of rows) {
    const xs = by.get(r.judge) ?? [];
    xs.push(r.ms);
    by.set(r.judge, xs);
  }
  return Object.fromEntries([...by].map(([j, xs]) => [j, xs[Math.floor(xs.length / 2)]]));
}

const sorted = (m: Map<string, unknown>) => [...m].sort(([a], [b]) => a.localeCompare(b));

const options = (judges: string[]) => ({ judges, n: 2, temperature: 0, concurrency: 4, noCache: false });

/** Answers `count` of a run's pending tasks: every `failEvery`-th fails, every 5th is cached. */
function answer(db: Db, runId: string, count: number, { failEvery = 4, seed = 1 } = {}) {
  const pending = getRunTasks(db, { runId })
    .filter((t) => t.status === "pending")
    .slice(0, count);
  const items: SampleRecord[] = pending.map((t, i) => {
    const det = t.judge === "deterministic";
    const failed = !det && (i + seed) % failEvery === 0;
    const cached = !det && !failed && (i + seed) % 5 === 0;
    return {
      sample: {
        taskId: t.id,
        runId,
        caseId: t.caseId,
        criterionId: t.criterionId,
        judge: t.judge,
        sampleIndex: t.sampleIndex,
        score: failed ? null : 5,
        reasoning: failed ? null : "ok",
        rawText: failed ? null : '{"score":5}',
        latencyMs: det || cached ? 0 : 100 + ((i * 37 + seed * 11) % 900),
        inputTokens: 10,
        outputTokens: 5,
        costUsd: det || cached ? 0 : 0.0001 * (1 + ((i * 7 + seed) % 13)) + 1e-7 * seed,
        attempts: failed ? 3 : 1,
        cached,
        error: failed ? "boom" : null,
      },
    };
  });
  writeSamples(db, items);
}

let writeSamples: (db: Db, items: Parameters<typeof recordSamples>[1]) => void = recordSamples;

/** Samples as a database of migration 0009's time stores them (its columns only), each finishing its task. */
function recordSamplesAt0009(db: Db, items: Parameters<typeof recordSamples>[1]): void {
  const c = db.$client;
  const finish = c.prepare("update tasks set status = ? where id = ? and status = 'pending'");
  const insert = c.prepare(
    `insert into samples (task_id, run_id, case_id, criterion_id, judge, sample_index, score, reasoning, raw_text,
      latency_ms, input_tokens, output_tokens, cost_usd, attempts, cached, error, created_at)
     values (@taskId, @runId, @caseId, @criterionId, @judge, @sampleIndex, @score, @reasoning, @rawText,
      @latencyMs, @inputTokens, @outputTokens, @costUsd, @attempts, @cached, @error, @createdAt)`,
  );
  c.transaction(() => {
    for (const { sample: s } of items) {
      if (finish.run(s.error ? "error" : "done", s.taskId).changes === 0) continue;
      insert.run({ ...s, cached: s.cached ? 1 : 0, createdAt: Date.now() });
    }
  })();
}

/** Several runs in every state the runs list shows. */
async function manyRuns(db: Db) {
  const { registry } = testRegistry();
  const suite = loadSuite(testSuite(4));
  const mk = (judges = ["local:a", "local:b"]) => createRun(db, suite, registry, options(judges));
  const finish = (id: string, status: "done" | "done_with_failures" | "failed" | "cancelled" = "done") =>
    setRunStatus(db, { id, status });

  const done = await mk();
  setRunStatus(db, { id: done, status: "running" });
  answer(db, done, 1000, { seed: 1 });
  finish(done, "done_with_failures");

  // re-sampled after it finished: the superseded samples still count in its cost, then it ran again
  const resampled = await mk(["local:a", "local:c"]);
  setRunStatus(db, { id: resampled, status: "running" });
  answer(db, resampled, 1000, { seed: 2 });
  finish(resampled);
  const ids = db.$client
    .prepare("select id from samples where run_id = ? and error is null limit 5")
    .pluck()
    .all(resampled) as number[];
  expect(requeueSamples(db, { runId: resampled, sampleIds: ids, reason: "resampled", fresh: true })).toEqual({
    ok: true,
    requeued: 5,
  });
  setRunStatus(db, { id: resampled, status: "running" });
  answer(db, resampled, 1000, { seed: 3 });
  finish(resampled);

  const running = await mk();
  setRunStatus(db, { id: running, status: "running" });
  answer(db, running, 9, { seed: 4 });

  const queued = await mk(["local:b"]); // nothing answered yet

  // cancelled part-way, then a call that was in flight is stored after it finished
  const late = await mk();
  setRunStatus(db, { id: late, status: "running" });
  answer(db, late, 6, { seed: 5 });
  finish(late, "cancelled");
  answer(db, late, 1, { seed: 6 });

  return { done, resampled, running, queued, late };
}

const totalsRows = (db: Db) =>
  db.$client.prepare("select run_id from run_totals order by run_id").pluck().all() as string[];

describe("the runs list's aggregates", () => {
  it("getProgressByRun gives what counting every task and sample gave, for runs in every state", async () => {
    const { db } = tempDb();
    const ids = await manyRuns(db);
    const legacy = legacyProgressByRun(db);
    expect(legacy.get(ids.done)?.errors).toBeGreaterThan(0);
    expect(legacy.get(ids.queued)).toEqual({ done: 0, errors: 0, costUsd: 0 });
    expect(sorted(getProgressByRun(db))).toEqual(sorted(legacy));
    // the finished runs are read from run_totals; the running, queued and late-written ones counted live
    expect(totalsRows(db)).toEqual([ids.done, ids.resampled].sort());
    // a live run is counted from indexes alone: no task or sample row is read
    const plan = db.$client
      .prepare(
        "explain query plan select count(*), sum(status = 'done'), (select sum(cost_usd) from samples where run_id = @id) from tasks where run_id = @id",
      )
      .all({ id: ids.running }) as { detail: string }[];
    expect(plan.map((p) => p.detail)).toEqual([
      "SEARCH tasks USING COVERING INDEX tasks_run_id_status_claim_idx (run_id=?)",
      "SCALAR SUBQUERY 1",
      "SEARCH samples USING COVERING INDEX samples_run_id_case_id_idx (run_id=?)",
    ]);
  });

  it("a running run's counts are live, and a run's totals follow it back to work and to its end", async () => {
    const { db } = tempDb();
    const ids = await manyRuns(db);
    const before = getProgressByRun(db).get(ids.running)!;
    answer(db, ids.running, 3, { seed: 7 });
    const after = getProgressByRun(db).get(ids.running)!;
    expect(after.done + after.errors).toBe(before.done + before.errors + 3);
    expect(sorted(getProgressByRun(db))).toEqual(sorted(legacyProgressByRun(db)));

    // re-sampling a finished run takes its totals away until it finishes again
    const [sampleId] = db.$client
      .prepare("select id from samples where run_id = ? and error is null and superseded_at is null limit 1")
      .pluck()
      .all(ids.done) as number[];
    requeueSamples(db, { runId: ids.done, sampleIds: [sampleId], reason: "resampled", fresh: true });
    expect(totalsRows(db)).not.toContain(ids.done);
    expect(getProgressByRun(db).get(ids.done)).toEqual(legacyProgressByRun(db).get(ids.done));
    setRunStatus(db, { id: ids.done, status: "running" });
    answer(db, ids.done, 1, { seed: 8 });
    setRunStatus(db, { id: ids.done, status: "done_with_failures" });
    setRunStatus(db, { id: ids.late, status: "cancelled" });
    expect(totalsRows(db)).toEqual([ids.done, ids.resampled, ids.late].sort());
    expect(sorted(getProgressByRun(db))).toEqual(sorted(legacyProgressByRun(db)));

    // a deleted run takes its totals with it
    db.$client.prepare("delete from runs where id = ?").run(ids.done);
    expect(totalsRows(db)).not.toContain(ids.done);
    expect(sorted(getProgressByRun(db))).toEqual(sorted(legacyProgressByRun(db)));
  });

  it("migration 0009 fills run_totals for the runs already finished", async () => {
    const old = path.join(tempDir("jury-migrations-"), "migrations");
    const src = defaultMigrationsFolder();
    fs.mkdirSync(path.join(old, "meta"), { recursive: true });
    const journal = JSON.parse(fs.readFileSync(path.join(src, "meta", "_journal.json"), "utf8"));
    const tag = journal.entries.findIndex((e: { tag: string }) => e.tag === "0009_run_progress");
    expect(tag).toBe(9);
    journal.entries = journal.entries.slice(0, tag);
    for (const e of journal.entries)
      fs.copyFileSync(path.join(src, `${e.tag}.sql`), path.join(old, `${e.tag}.sql`));
    fs.writeFileSync(path.join(old, "meta", "_journal.json"), JSON.stringify(journal));

    const file = path.join(tempDir(), "jury.db");
    const before = createDb(file, { migrationsFolder: old });
    // written with the columns samples had then (later migrations add some)
    writeSamples = recordSamplesAt0009;
    // today's run planner names the task-claim columns of migration 0013 and the run's author of
    // migration 0015: lend them while it writes
    before.$client.exec(
      "alter table tasks add claimed_by text; alter table tasks add claim_expires_at integer; alter table runs add created_by text",
    );
    const ids = await manyRuns(before).finally(() => {
      writeSamples = recordSamples;
    });
    before.$client.exec(
      "alter table tasks drop column claimed_by; alter table tasks drop column claim_expires_at; alter table runs drop column created_by",
    );
    const expected = legacyProgressByRun(before);
    const medians = legacyMedianLatencyByJudge(before);
    before.$client.close();

    const db = createDb(file);
    expect(totalsRows(db)).toEqual([ids.done, ids.resampled, ids.late].sort());
    expect(sorted(getProgressByRun(db))).toEqual(sorted(expected));
    expect(getMedianLatencyByJudge(db)).toEqual(medians);
  });

  it("getMedianLatencyByJudge gives the old median while a judge has fewer live calls than the window", async () => {
    const { db } = tempDb();
    await manyRuns(db);
    const legacy = legacyMedianLatencyByJudge(db);
    expect(Object.keys(legacy)).toEqual(["local:a", "local:b", "local:c"]);
    const counts = db.$client
      .prepare(
        "select count(*) from samples where cached = 0 and error is null and judge != 'deterministic' group by judge",
      )
      .pluck()
      .all() as number[];
    expect(Math.max(...counts)).toBeLessThan(LATENCY_WINDOW);
    expect(getMedianLatencyByJudge(db)).toEqual(legacy);
    expect(Object.keys(getMedianLatencyByJudge(db))).toEqual(Object.keys(legacy));
  });

  it("takes each judge's median over its latest live calls only, and uses the index for it", async () => {
    const { db } = tempDb();
    const { registry } = testRegistry();
    const runId = await createRun(db, loadSuite(testSuite(4)), registry, options(["local:a"]));
    const tasks = getRunTasks(db, { runId }).filter((t) => t.judge === "local:a");
    expect(tasks.length).toBe(16);
    // oldest first: eight slow calls, then a cached one, a failed one and six fast ones
    const latency = [900, 910, 920, 930, 940, 950, 960, 970, 5, 7, 10, 20, 30, 40, 50, 60];
    recordSamples(
      db,
      tasks.map((t, i) => ({
        sample: {
          taskId: t.id,
          runId,
          caseId: t.caseId,
          criterionId: t.criterionId,
          judge: t.judge,
          sampleIndex: t.sampleIndex,
          score: i === 9 ? null : 5,
          reasoning: null,
          rawText: null,
          latencyMs: latency[i],
          inputTokens: 1,
          outputTokens: 1,
          costUsd: 0,
          attempts: 1,
          cached: i === 8,
          error: i === 9 ? "boom" : null,
        },
      })),
    );
    // all 14 live calls: 10..60 and 900..970, the upper median
    expect(getMedianLatencyByJudge(db)).toEqual({ "local:a": 910 });
    // the latest 6 live calls: 10..60 (the cached and the failed ones are not calls that count)
    expect(getMedianLatencyByJudge(db, { window: 6 })).toEqual({ "local:a": 40 });
    expect(getMedianLatencyByJudge(db, { window: 8 })).toEqual({ "local:a": 50 }); // 960, 970 and those
    const plan = db.$client
      .prepare(
        `explain query plan select latency_ms from samples
         where judge = ? and cached = 0 and error is null and judge != 'deterministic' order by id desc limit ?`,
      )
      .all("local:a", 6) as { detail: string }[];
    // newest first from the index: K rows read, no sort of the judge's every call
    expect(plan.map((p) => p.detail)).toEqual([
      "SEARCH samples USING INDEX samples_judge_live_idx (judge=?)",
    ]);
  });
});
