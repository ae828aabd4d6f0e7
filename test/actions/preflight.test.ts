import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "@/lib/testing/fixtures";
import { enableProviders } from "@/lib/testing/settings-db";

// The dashboard's start action refuses a panel with a judge that cannot be called, before anything is
// stored: the same refusal as the CLI's, as a field error on the judges.
const db = path.join(tempDir(), "preflight.db");
const saved = { key: process.env.OPENAI_API_KEY, db: process.env.JURY_DB };
beforeAll(() => {
  enableProviders(db, ["local", "openai"]);
  process.env.JURY_DB = db;
  process.env.JURY_LOCAL_BASE_URL = "http://127.0.0.1:9/v1"; // never called
  delete process.env.OPENAI_API_KEY;
});
afterAll(() => {
  process.env.JURY_DB = saved.db;
  if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
});

const form = (entries: [string, string][]) => {
  const f = new FormData();
  for (const [k, v] of entries) f.append(k, v);
  return f;
};

describe("startRun preflight", () => {
  it("a judge whose provider has no key: refused with a field error naming it and the variable; no run stored", async () => {
    const { startRun } = await import("@/app/actions/runs");
    const r = await startRun(
      null,
      form([
        ["suiteDir", path.resolve("examples/suites/qa")],
        ["judges", "local:llama3.1:8b"],
        ["judges", "openai:gpt-5-mini"],
        ["n", "1"],
      ]),
    );
    expect(r).toMatchObject({
      ok: false,
      error: expect.stringContaining("openai:gpt-5-mini: OPENAI_API_KEY is not set"),
      fieldErrors: { judges: "openai:gpt-5-mini: OPENAI_API_KEY is not set" },
    });
    const d = new Database(db, { readonly: true });
    expect(d.prepare("select count(*) from runs").pluck().get()).toBe(0);
    expect(d.prepare("select count(*) from jobs").pluck().get()).toBe(0);
    d.close();
  });
});

describe("startExperiment preflight", () => {
  it("a judge model whose provider has no key: refused with a field error on the model; no experiment stored", async () => {
    const { createDb } = await import("@/db/client");
    const { importStudyFolder } = await import("@/lib/memory/import");
    const d = createDb(db);
    await importStudyFolder(d, path.resolve("examples/memory-study"), "s");
    d.$client.close();
    const { startExperiment } = await import("@/app/actions/memory");
    const r = await startExperiment(
      null,
      form([
        ["collection", "s"],
        ["kind", "single"],
        ["mode", "auto"],
        ["topK", "3"],
        ["poolSize", "15"],
        ["n", "1"],
        ["model", "openai:gpt-5-mini"],
      ]),
    );
    expect(r).toMatchObject({
      ok: false,
      error: expect.stringContaining("openai:gpt-5-mini: OPENAI_API_KEY is not set"),
      fieldErrors: { model: "openai:gpt-5-mini: OPENAI_API_KEY is not set" },
    });
    const check = new Database(db, { readonly: true });
    expect(check.prepare("select count(*) from experiments").pluck().get()).toBe(0);
    check.close();
  });
});
