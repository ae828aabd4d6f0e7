// Batch crash test: `jury eval --batch` is killed (SIGKILL) while its batches are pending at the
// providers; `jury eval --resume` collects their results without submitting anything again. The
// provider simulators are served on loopback and reached by the child through a preload module;
// they count the batches and batch requests submitted.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { getRunBatches } from "@/db/queries/batches";
import { getRunSamples, listRuns } from "@/db/queries/runs";
import { writeSettings } from "@/lib/settings/store";
import { simSettings } from "@/lib/testing/cost-harness";
import { tempDir, writeJson } from "@/lib/testing/fixtures";
import { childEnv, createProviderSims } from "@/lib/testing/provider-sims";
import { spawnJury } from "@/lib/testing/run-jury";

const sims = createProviderSims();
let env: Record<string, string>;
beforeAll(async () => {
  const { preload } = await sims.listen();
  env = { ...childEnv(sims, preload), JURY_BATCH_POLL_MS: "50" };
});
afterAll(() => sims.close());

/** Two cases judged on correctness, with prompts past every cache minimum. */
function suite(): string {
  const dir = tempDir("jury-batch-crash-");
  writeJson(path.join(dir, "suite.json"), { name: "Batch crash", criteria: [{ id: "correctness" }] });
  for (let i = 0; i < 2; i++)
    writeJson(path.join(dir, "cases", `c${i}.json`), {
      id: `c${i}`,
      name: `Case ${i}`,
      input: {
        prompt: `What is owed in case ${i}?`,
        reference: "The shipping fee.",
        context: "The policy refunds the shipping fee when delivery is two or more days late. ".repeat(300),
      },
      output: "The shipping fee is refunded.",
    });
  return dir;
}

async function until(cond: () => boolean, ms = 60_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("a batched run killed while its batches are pending", () => {
  it("resumes by polling the stored batches: no batch and no request is submitted twice", async () => {
    const dbFile = path.join(tempDir("jury-batch-db-"), "jury.db");
    const db = createDb(dbFile);
    await writeSettings(db, simSettings());
    const judges = "openai:gpt-5-mini,anthropic:claude-haiku-4-5,google:gemini-2.5-flash";
    const child = spawnJury(["eval", suite(), "--judges", judges, "--n", "2", "--batch", "--json"], {
      cwd: tempDir(),
      env: { ...env, JURY_DB: dbFile },
    });
    // both batches submitted and stored, the Google judge's live calls answered meanwhile
    await until(() => sims.counts.batches === 2);
    await until(() => {
      const run = listRuns(db)[0];
      return Boolean(run) && getRunBatches(db, { runId: run.id }).length === 2;
    });
    child.kill("SIGKILL");
    const killed = await child.out;
    expect(killed.code).toBeNull();
    const runId = listRuns(db)[0].id;
    const submitted = { ...sims.counts };
    expect(submitted).toEqual({ batches: 2, batchRequests: 2 * 2 * 2 });
    expect(getRunSamples(db, { runId }).filter((s) => s.batched)).toHaveLength(0);

    // the providers finish the batches while nothing polls them
    await sims.processBatches();
    const resumed = await spawnJury(["eval", "--resume", runId, "--json"], {
      cwd: tempDir(),
      env: { ...env, JURY_DB: dbFile },
    }).out;
    expect(resumed.stderr).toMatch(/batch .* ended/);
    // (the JSON object; until the SDK's warnings are kept off stdout, they may come before it)
    const out = JSON.parse(resumed.stdout.slice(resumed.stdout.indexOf("{\n")));
    expect(out.status).toBe("done");
    expect(out.cost.batched_calls).toBe(8);
    expect(sims.counts).toEqual(submitted);
    const samples = getRunSamples(db, { runId });
    expect(samples).toHaveLength(3 * 2 * 2);
    expect(samples.every((s) => s.error === null)).toBe(true);
    // the batches' results are billed once, at the batch rate, and stored once
    const batchedUsd = samples.filter((s) => s.batched).reduce((x, s) => x + s.costUsd, 0);
    expect(batchedUsd).toBeCloseTo(sims.ledger.total({ mode: "batch" }), 9);
    // (a live answer the killed process had not stored yet was paid and asked again: never less)
    expect(out.cost.cost_usd).toBeLessThanOrEqual(sims.ledger.total() + 1e-9);
    sims.assertNoRejections();
    db.$client.close();
    fs.rmSync(path.dirname(dbFile), { recursive: true, force: true });
  }, 120_000);
});
