// A review started from the dashboard, the server SIGKILLed mid-review and restarted (the built
// server, `npm start`): the review's job is recovered as interrupted (never left running), nothing
// runs again (the scripted server's call count), and the Reviews page lists it as interrupted.
// Needs `npm run build` (`npm test` does).
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type AppProcess,
  actionId,
  freePort,
  requireBuild,
  sendRaw,
  startApp,
  stopApp,
} from "@/e2e/app-server";
import { tempDir } from "@/lib/testing/fixtures";
import { type ScriptedServer, startScriptedServer } from "@/lib/testing/scripted-server";
import { enableProviders } from "@/lib/testing/settings-db";

const request = sendRaw;

/**
 * The dashboard's form posted the way React's client sends `startReview(prev, formData)`: a
 * multipart body whose field `0` holds the argument list, the form as `$K1`, its fields prefixed `_1_`.
 */
async function postStartReview(port: number, id: string, fields: [string, string][]) {
  const form = new FormData();
  for (const [k, v] of fields) form.append(`_1_${k}`, v);
  form.append("0", '[null,"$K1"]');
  const res = new Response(form);
  return request(port, {
    method: "POST",
    path: "/reviews",
    headers: {
      "next-action": id,
      accept: "text/x-component",
      "content-type": res.headers.get("content-type") ?? "",
      origin: `http://127.0.0.1:${port}`,
    },
    body: Buffer.from(await res.arrayBuffer()),
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, f: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const judgment = {
  schema_version: "1.0.0",
  verdict: "pass",
  score: 0.9,
  dimensions: { correctness: 0.9, scope_adherence: 0.9, code_quality: 0.9, completeness: 0.9 },
  issues: [],
  summary: "Fine.",
  confidence: "high",
};

let server: ScriptedServer;
let app: AppProcess | undefined;
beforeAll(async () => {
  requireBuild("test/crash/review-crash.test.ts");
  // slow answers: the review is still working when the server is killed
  server = await startScriptedServer((req) =>
    req.text.includes("When in doubt, pass")
      ? { delayMs: 300, json: { verdict: "pass", reasoning: "meets the criteria" } }
      : { delayMs: 4_000, json: judgment },
  );
});
afterAll(async () => {
  if (app) await stopApp(app);
  await server?.close();
});

it("SIGKILL of the server during a dashboard-started review: its job is interrupted, nothing runs twice, the Reviews page lists it", async () => {
  const startReviewId = actionId("app/actions/reviews.ts", "startReview");
  const db = enableProviders(path.join(tempDir(), "jury.db"), ["local"], (s) => ({
    ...s,
    providers: { ...s.providers, local: { ...s.providers.local, models: ["judge"] } },
  }));
  const port = await freePort();
  const env = { JURY_LOCAL_BASE_URL: server.baseURL, JUDGE_ENABLED: "", JUDGE_MAX_PER_HOUR: "100" };
  const read = new Database(db, { readonly: true });
  const jobOf = (id: string) =>
    read.prepare("select status, done, total, error from jobs where id = ?").get(id) as
      | { status: string; done: number; total: number; error: string | null }
      | undefined;
  try {
    app = await startApp({ port, db, env });
    const r = await postStartReview(port, startReviewId, [
      ["title", "crash review"],
      ["criteria", "slugify lower-cases and joins words with dashes"],
      ["diff", "--- a/s.ts\n+++ b/s.ts\n@@ -0,0 +1 @@\n+export const slugify = (s: string) => s;\n"],
      ["passed", "3"],
      ["failed", "0"],
      ["testOutput", ""],
      ["judges", "local:judge"],
      ["n", "3"],
      ["perDimension", "on"],
    ]);
    expect(r.status, r.body.slice(0, 500)).toBe(200);
    const id = /"reviewId":"(rev_[0-9a-f]{10})"/.exec(r.body)?.[1];
    expect(id, r.body.slice(0, 500)).toBeDefined();
    const reviewId = id as string;
    const planned = 1 + 3 * 4; // the gate, then N = 3 samples × 4 dimensions
    expect(jobOf(reviewId)).toMatchObject({ total: planned });

    // mid-review: the gate answered, the scored judgment's calls are in flight
    await until("the judgment's calls", () => (server.requests.length >= 3 ? true : undefined));
    expect(jobOf(reviewId)?.status).toBe("running");
    if (!app.pid) throw new Error("no app pid");
    process.kill(-app.pid, "SIGKILL");
    await until("the server's exit", () => (app?.exitCode !== null || app?.signalCode ? true : undefined));
    app = undefined;
    const callsAtKill = server.requests.length;
    expect(callsAtKill).toBeLessThan(planned);
    expect(jobOf(reviewId)?.status).toBe("running"); // what the dead server left

    app = await startApp({ port, db, env });
    // recovery runs at start (instrumentation), never from a page
    const job = await until("recovery", () => {
      const j = jobOf(reviewId);
      return j && j.status !== "running" ? j : undefined;
    });
    expect(job.status).toBe("interrupted");
    expect(job.error).toContain("stopped before it finished");
    expect(read.prepare("select count(*) as n from reviews").get()).toEqual({ n: 0 });

    const live = await request(port, { path: `/api/progress/${reviewId}` });
    expect(JSON.parse(live.body)).toMatchObject({ kind: "review", status: "interrupted", stored: false });
    const page = await request(port, { path: "/reviews" });
    expect(page.status).toBe(200);
    const item = new RegExp(`data-review-id="${reviewId}" data-status="([a-z]+)"`).exec(page.body);
    expect(item?.[1]).toBe("interrupted");
    expect(page.body).toContain("stopped before it finished");

    // nothing ran again after the restart: no call made twice, the job not resumed
    await sleep(2_000);
    expect(server.requests.length).toBe(callsAtKill);
    expect(jobOf(reviewId)?.status).toBe("interrupted");
  } finally {
    read.close();
  }
}, 180_000);
