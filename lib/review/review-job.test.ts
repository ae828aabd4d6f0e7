// A review as a job: stored when it finishes with its job done; cancelled through the jobs row, its
// calls in flight are aborted (the model server sees each request closed) and nothing is stored.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJob } from "@/db/queries/jobs";
import { getReview } from "@/db/queries/reviews";
import { cancelJob } from "../jobs/runner";
import type { Settings } from "../settings/schema";
import { tempDb } from "../testing/fixtures";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { settingsEnabling } from "../testing/settings-db";
import { assembleContext } from "./assemble";
import { enqueueReview, executeReview, newReviewId } from "./review-job";
import type { ReviewOptions } from "./run-review";

const judgment = {
  schema_version: "1.0.0",
  verdict: "pass",
  score: 0.9,
  dimensions: { correctness: 0.9, scope_adherence: 0.9, code_quality: 0.9, completeness: 0.9 },
  issues: [],
  summary: "Fine.",
  confidence: "high",
};

/** A model endpoint that never answers, and records each request it saw closed by the client. */
async function hangingServer() {
  const seen: { closed: boolean }[] = [];
  const server = http.createServer((req, res) => {
    const r = { closed: false };
    seen.push(r);
    req.resume();
    res.on("close", () => {
      r.closed = true;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const settings: Settings = (() => {
  const s = settingsEnabling(["local"]);
  return { ...s, judging: { ...s.judging, timeoutMs: 15_000, maxRetries: 0 } };
})();

const options = (over: Partial<ReviewOptions> = {}): ReviewOptions => ({
  context: assembleContext({
    criteria: "slugify lower-cases and joins words with dashes",
    diff: "--- a/s.ts\n+++ b/s.ts\n@@ -0,0 +1 @@\n+export const slugify = (s: string) => s;\n",
    passed: 3,
    failed: 0,
  }),
  judges: ["local:judge"],
  n: 2,
  perDimension: false,
  quick: false,
  settings,
  judgeAllowed: { ok: true },
  ...over,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const baseUrlBefore = process.env.JURY_LOCAL_BASE_URL;
afterAll(() => {
  if (baseUrlBefore === undefined) delete process.env.JURY_LOCAL_BASE_URL;
  else process.env.JURY_LOCAL_BASE_URL = baseUrlBefore;
});

describe("a review as a job", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer((req) =>
      req.text.includes("When in doubt, pass")
        ? { json: { verdict: "pass", reasoning: "meets the criteria" } }
        : { json: judgment },
    );
  });
  afterAll(() => server.close());

  it("has its job queued with the calls it plans, then runs, is stored under the same id, and its job is done", async () => {
    process.env.JURY_LOCAL_BASE_URL = server.baseURL;
    const { db } = tempDb();
    const id = newReviewId();
    const o = options();
    await enqueueReview(db, id, o);
    expect(getJob(db, { id })).toMatchObject({ kind: "review", status: "queued", total: 3 });
    const r = await executeReview(db, { id, title: "slugify", options: o, heartbeatMs: 20 });
    expect(r).toMatchObject({ status: "done", error: null, stored: true });
    expect(r.outcome?.calls).toHaveLength(3); // the gate and 2 samples
    const stored = getReview(db, id);
    expect(stored).toMatchObject({ id, title: "slugify", verdict: "pass", verdictSource: "judge" });
    expect(stored?.record.calls).toHaveLength(3);
    expect(getJob(db, { id })).toMatchObject({ status: "done", ownerToken: null, error: null });
  });

  it("a write that fails: the job is interrupted with the storage error, no review row, and the error comes back", async () => {
    process.env.JURY_LOCAL_BASE_URL = server.baseURL;
    const { db } = tempDb();
    const id = newReviewId();
    db.$client.exec(
      "create trigger no_reviews before insert on reviews begin select raise(abort, 'database or disk is full'); end",
    );
    const r = await executeReview(db, { id, title: "t", options: options(), heartbeatMs: 20 });
    expect(r.status).toBe("interrupted");
    expect(r.stored).toBe(false);
    expect(r.error).toContain("Storage failed: database or disk is full");
    expect(String(r.thrown)).toContain("database or disk is full");
    expect(getReview(db, id)).toBeUndefined();
    expect(getJob(db, { id })).toMatchObject({ status: "interrupted" });
  });
});

describe("cancelling a running review", () => {
  let hang: Awaited<ReturnType<typeof hangingServer>>;
  beforeAll(async () => {
    hang = await hangingServer();
  });
  afterAll(() => hang.close());

  it("aborts its calls in flight (each request closed), stores nothing, and its job says cancelled", async () => {
    process.env.JURY_LOCAL_BASE_URL = hang.baseURL;
    const { db } = tempDb();
    const id = newReviewId();
    // quick: no gate, so all judges × N samples are in flight at once
    const o = options({ quick: true, judges: ["local:a", "local:b"], n: 2 });
    await enqueueReview(db, id, o);
    const started = Date.now();
    const running = executeReview(db, { id, title: "t", options: o, heartbeatMs: 25 });
    const deadline = Date.now() + 10_000;
    while (hang.seen.length < 4 && Date.now() < deadline) await sleep(10);
    expect(hang.seen).toHaveLength(4);
    expect(getJob(db, { id })?.status).toBe("running");
    expect(hang.seen.every((s) => !s.closed)).toBe(true);

    expect(await cancelJob(db, id)).toBe(true);
    const r = await running;
    // the calls would wait 15 s for their timeout: the cancel stopped them within a heartbeat or so
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r).toMatchObject({ status: "cancelled", stored: false });
    expect(r.error).toContain("Cancelled");
    expect(r.outcome?.calls).toHaveLength(4);
    expect(r.outcome?.calls.every((c) => c.error !== undefined)).toBe(true);
    await sleep(50);
    expect(hang.seen.map((s) => s.closed)).toEqual([true, true, true, true]);
    expect(hang.seen).toHaveLength(4); // no retry, no new call after the cancel
    expect(getReview(db, id)).toBeUndefined();
    expect(getJob(db, { id })).toMatchObject({ status: "cancelled", ownerToken: null });
  });
});
