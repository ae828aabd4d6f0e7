import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { getPendingTasks, getRunSamples, type SampleWrite } from "@/db/queries/runs";
import type { Task } from "@/db/schema";
import { loadSuite } from "../suites/load-suite";
import { tempDb, testRegistry, testSuite } from "../testing/fixtures";
import { createRun } from "./plan-run";
import { createSampleWriter } from "./sample-writer";

let env: Awaited<ReturnType<typeof setup>>;
async function setup() {
  const { db } = tempDb();
  const runId = await createRun(db, loadSuite(testSuite(4)), testRegistry().registry, {
    judges: ["local:a"],
    n: 1,
    temperature: 0,
    concurrency: 4,
    noCache: true,
  });
  return { db, runId, tasks: getPendingTasks(db, { runId }) };
}
beforeAll(async () => {
  env = await setup();
});
afterAll(() => env.db.$client.close());

const sample = (t: Task, runId: string, score = 3): SampleWrite => ({
  taskId: t.id,
  runId,
  caseId: t.caseId,
  criterionId: t.criterionId,
  judge: t.judge,
  sampleIndex: t.sampleIndex,
  score,
  reasoning: "r",
  rawText: "{}",
  latencyMs: 1,
  inputTokens: 1,
  outputTokens: 1,
  costUsd: 0,
  attempts: 1,
  cached: false,
  error: null,
});

it("answers of one turn are committed together at its end, and counted only once committed", async () => {
  const { db, runId, tasks } = env;
  const errors: unknown[] = [];
  const w = createSampleWriter(db, (e) => errors.push(e));
  const stored: boolean[] = [];
  for (const t of tasks.slice(0, 3)) w.write({ sample: sample(t, runId) }, (ok) => stored.push(ok));
  expect(stored).toEqual([]); // not yet committed: not counted
  expect(getRunSamples(db, { runId })).toHaveLength(0);
  await new Promise((r) => setImmediate(r));
  expect(stored).toEqual([true, true, true]);
  expect(getRunSamples(db, { runId })).toHaveLength(3);
  // a task written twice: the second is not written, and says so
  w.write({ sample: sample(tasks[0], runId) }, (ok) => stored.push(ok));
  w.flush();
  expect(stored).toEqual([true, true, true, false]);
  expect(errors).toEqual([]);
});

it("a write the database refuses never takes the rest of its batch with it; the error stops the writer", () => {
  const { db, runId, tasks } = env;
  const rest = tasks.slice(3, 8);
  db.$client.exec(`create trigger refuse before insert on samples when new.score = 99
    begin select raise(abort, 'database or disk is full'); end`);
  const errors: unknown[] = [];
  const w = createSampleWriter(db, (e) => errors.push(e));
  const stored: (number | string)[] = [];
  // the third of five is refused: the two before it are stored, the writer stops there
  for (const [i, t] of rest.entries())
    w.write({ sample: sample(t, runId, i === 2 ? 99 : 3) }, () => stored.push(t.id));
  w.flush();
  db.$client.exec("drop trigger refuse");
  expect(stored).toEqual([rest[0].id, rest[1].id]);
  expect(errors).toHaveLength(1);
  expect(String(errors[0])).toContain("database or disk is full");
  const pending = new Set(getPendingTasks(db, { runId }).map((t) => t.id));
  for (const t of rest.slice(2)) expect(pending.has(t.id)).toBe(true); // left for a resume
  // stopped: nothing more is written
  w.write({ sample: sample(rest[3], runId) }, () => stored.push("late"));
  w.flush();
  expect(stored).toHaveLength(2);
});

it("a progress callback that throws is neither a storage failure nor an uncaught error: the rest are still counted", async () => {
  const { db, runId, tasks } = env;
  const errors: unknown[] = [];
  const w = createSampleWriter(db, (e) => errors.push(e));
  const seen: boolean[] = [];
  const [a, b] = getPendingTasks(db, { runId }).slice(0, 2);
  w.write({ sample: sample(a, runId) }, () => {
    throw new Error("progress bar broke");
  });
  w.write({ sample: sample(b, runId) }, (ok) => seen.push(ok));
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  await new Promise((r) => setImmediate(r));
  spy.mockRestore();
  expect(seen).toEqual([true]);
  expect(errors).toEqual([]);
  expect(tasks.length).toBeGreaterThan(0);
});
