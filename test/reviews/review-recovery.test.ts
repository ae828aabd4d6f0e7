// A review whose process died: recovery marks its job interrupted (there is no review row to mark),
// the live snapshot says so with why, and the Reviews page's list of unstored review jobs keeps it.
import { spawnSync } from "node:child_process";
import { eq } from "drizzle-orm";
import { expect, it } from "vitest";
import { getJob } from "@/db/queries/jobs";
import { getReviewLive } from "@/db/queries/progress";
import { insertReview, listUnstoredReviewJobs } from "@/db/queries/reviews";
import { jobs } from "@/db/schema";
import { recoverJobs } from "@/lib/jobs/recover";
import { claimJob, enqueueJob } from "@/lib/jobs/runner";
import { tempDb } from "@/lib/testing/fixtures";

it("a dead review's job is interrupted with why, listed and shown live as such; a stored review is not listed", async () => {
  const { db } = tempDb();
  await enqueueJob(db, { id: "rev_00000000aa", kind: "review", total: 5 });
  await claimJob(db, { id: "rev_00000000aa", kind: "review" });
  const dead = spawnSync("true").pid ?? 999_999;
  db.update(jobs).set({ ownerPid: dead, done: 2 }).where(eq(jobs.id, "rev_00000000aa")).run();
  // a finished review: its job done and its row stored
  await enqueueJob(db, { id: "rev_00000000bb", kind: "review", total: 1 });
  db.update(jobs).set({ status: "done" }).where(eq(jobs.id, "rev_00000000bb")).run();
  await insertReview(db, {
    id: "rev_00000000bb",
    title: "stored",
    verdict: "pass",
    verdictSource: "tests",
    score: null,
    mechanicalScore: null,
    blendedScore: null,
    diff: "",
    record: { context: {}, samples: [], warnings: [], calls: [] },
  });
  expect(await getReviewLive(db, "rev_00000000aa")).toMatchObject({
    kind: "review",
    status: "running",
    done: 2,
  });

  expect(await recoverJobs(db)).toBe(1);
  const job = await getJob(db, { id: "rev_00000000aa" });
  expect(job).toMatchObject({ status: "interrupted", ownerToken: null });
  expect(job?.error).toContain(`The process working it (process ${dead} on`);
  expect(await getReviewLive(db, "rev_00000000aa")).toMatchObject({
    status: "interrupted",
    done: 2,
    total: 5,
    stored: false,
    error: job?.error,
  });
  expect((await listUnstoredReviewJobs(db)).map((j) => [j.id, j.status])).toEqual([
    ["rev_00000000aa", "interrupted"],
  ]);
  expect(await getReviewLive(db, "rev_00000000bb")).toMatchObject({ status: "done", stored: true, done: 0 });
  // a run's id is not a review's
  expect(await getReviewLive(db, "run_20260101_deadbeef")).toBeUndefined();
});
