// `jury agreement` as a user runs it (bin/jury.cjs → dist/): every subcommand's --help, unknown
// options and bad values (exit 2), imports with their figures in --json, refused imports naming file,
// line and field with nothing stored, labels and undo on a run, and the pairwise audit on the
// scripted server.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { seedRun } from "../testing/agreement-run";
import { tempDir, writeJson } from "../testing/fixtures";
import { runJury, runJurySync } from "../testing/run-jury";
import { type ScriptedServer, startScriptedServer } from "../testing/scripted-server";
import { enableProviders } from "../testing/settings-db";
import { AGREEMENT_COMMANDS } from "./agreement";
import type { CommandSpec } from "./args";

const root = path.resolve(__dirname, "../..");
const ex = (...p: string[]) => path.join(root, "examples/agreement", ...p);
const newDb = () => path.join(tempDir(), "agreement.db");
const jury = (db: string, args: string[], env: Record<string, string> = {}) =>
  runJurySync(args, { env: { JURY_DB: db, JURY_HOOK_LOG: `${db}.log`, ...env } });
const json = (s: string) => JSON.parse(s);

describe("jury agreement: help, unknown options and bad values", () => {
  const db = newDb();
  it("jury agreement --help lists the commands; an unknown command or format exits 2 naming it", () => {
    const help = jury(db, ["agreement", "--help"]);
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining("import trec <gold.qrels>")]);
    expect(jury(db, ["--help"]).stdout).toContain("agreement <command>");
    const bad = jury(db, ["agreement", "frobnicate"]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('"frobnicate"')]);
    const fmt = jury(db, ["agreement", "import", "csv", "x"]);
    expect([fmt.code, fmt.stderr]).toEqual([2, expect.stringContaining('"csv"')]);
  });

  for (const spec of Object.values(AGREEMENT_COMMANDS) as CommandSpec[]) {
    const words = spec.name.split(" ");
    const positionals = Array.from({ length: spec.positionals?.min ?? 0 }, () => "x");
    it(`${spec.name}: --help, --frobnicate, and each option's bad value`, () => {
      const help = jury(db, [...words, "--help"]);
      expect([help.code, help.stdout]).toEqual([0, expect.stringContaining(`Usage: jury ${spec.name}`)]);
      const unknown = jury(db, [...words, ...positionals, "--frobnicate"]);
      expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining("--frobnicate")]);
      for (const [name, o] of Object.entries(spec.options)) {
        const args =
          o.type === "boolean"
            ? [`--${name}=yes`]
            : o.bad === undefined
              ? [`--${name}`]
              : [`--${name}`, o.bad];
        const r = jury(db, [...words, ...positionals, ...args]);
        expect([r.code, r.stderr], `${spec.name} ${args.join(" ")}`).toEqual([
          2,
          expect.stringContaining(`--${name}`),
        ]);
      }
    });
  }

  it("jury agreement import jsonl --help documents the format", () => {
    expect(jury(db, ["agreement", "import", "jsonl", "--help"]).stdout).toContain(
      '{"item_id": "q1", "judge": "gpt-x"',
    );
  });
});

describe("jury agreement import and show", () => {
  it("imports TREC qrels and shows the hand-computed κ and quadratic κ, in --json, the same from show", () => {
    const db = newDb();
    const r = jury(db, [
      "agreement",
      "import",
      "trec",
      ex("trec/gold.qrels"),
      ex("trec/judge-a.qrels"),
      ex("trec/judge-b.qrels"),
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = json(r.stdout);
    const a = out.report.judges[0].pointwise;
    expect(a.kappa.value).toBeCloseTo(5 / 9, 12);
    expect(a.weightedKappa.value).toBeCloseTo(11 / 13, 12);
    expect(a.binary.kappa.value).toBeCloseTo(2 / 3, 12);
    expect(out.report.judges[1].missing).toEqual(["q2 d4", "q3 d1"]);
    const shown = jury(db, ["agreement", "show", out.set_id, "--json"]);
    expect(shown.code).toBe(0);
    expect(json(shown.stdout)).toEqual({ kind: "import", ...out.report });
    const text = jury(db, ["agreement", "show", out.set_id]);
    expect(text.stdout).toContain("missing from its file (not guessed): q2 d4, q3 d1");
    const list = json(jury(db, ["agreement", "list", "--json"]).stdout);
    expect(list.imports.map((x: { id: string }) => x.id)).toEqual([out.set_id]);
  });

  it("imports the LLMBar fixture and shows accuracy per order and positional agreement exactly", () => {
    const db = newDb();
    const r = jury(db, [
      "agreement",
      "import",
      "llmbar",
      "--dataset",
      ex("llmbar/dataset.json"),
      ex("llmbar/evaluators/GPT-4/Vanilla/result.json"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /GPT-4\/Vanilla\s+12\s+66\.7% \[\d+, \d+\] \(n 12\)\s+58\.3% \[\d+, \d+\] \(n 12\)\s+62\.5%/,
    );
    expect(r.stdout).toContain("correct_average 62.50%");
    expect(r.stdout).toContain("equal 9/12");
  });

  it("refuses a bad import with exit 2, naming file, line and field, and stores nothing", () => {
    const db = newDb();
    const dir = tempDir();
    const bad = path.join(dir, "judge.qrels");
    require("node:fs").writeFileSync(bad, "q1 0 d1 3\nq1 0 d2 nine\n");
    const r = jury(db, ["agreement", "import", "trec", ex("trec/gold.qrels"), bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}:2: field 4 (label): "nine" is not a whole number`);
    expect(json(jury(db, ["agreement", "list", "--json"]).stdout).imports).toEqual([]);
    const missing = jury(db, ["agreement", "show", "nope"]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('"nope"')]);
  });
});

describe("jury agreement label, undo and show on a run", () => {
  it("labels verdicts, refuses a score off the scale, undoes, and shows the run's figures", async () => {
    const db = newDb();
    const handle = createDb(db);
    const run = await seedRun(handle);
    handle.$client.close();
    const label = (...a: string[]) => jury(db, ["agreement", "label", run, ...a]);
    expect(label("c1", "helpful", "pass", "--score", "8", "--by", "ana").code).toBe(0);
    expect(label("c2", "helpful", "fail").stdout).toContain("c2 × helpful: fail.");
    const off = label("c3", "helpful", "fail", "--score", "11");
    expect([off.code, off.stderr]).toEqual([2, expect.stringContaining("outside helpful's scale 1–10")]);
    expect(label("c9", "helpful", "pass").stderr).toContain('no case "c9"');
    expect(label("c1", "helpful", "maybe").code).toBe(2);
    const shown = json(jury(db, ["agreement", "show", run, "--json"]).stdout);
    expect(shown.kind).toBe("run");
    expect(shown.labelled).toBe(2);
    expect(shown.criteria[0].judges[0].passFail.n).toBe(2);
    expect(jury(db, ["agreement", "undo", run]).stdout).toContain("c2 × helpful is back to no label");
    expect(json(jury(db, ["agreement", "show", run, "--json"]).stdout).labelled).toBe(1);
    expect(json(jury(db, ["agreement", "list", "--json"]).stdout).runs).toMatchObject([
      { run_id: run, labels: 1, cells: 8 },
    ]);
  });
});

describe("jury agreement pairwise on the scripted server", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer(() => ({ json: { winner: "A", reasoning: "first" } }));
  });
  afterAll(() => server.close());

  it("a judge that prefers the output shown first: positional agreement 0, first-position wins 100 %", async () => {
    const db = enableProviders(newDb(), ["local"]);
    const r = await runJury(["agreement", "pairwise", ex("pairwise"), "--judges", "local:first", "--json"], {
      env: { JURY_DB: db, JURY_HOOK_LOG: `${db}.log`, JURY_LOCAL_BASE_URL: server.baseURL },
    });
    expect(r.code, r.stderr).toBe(0);
    const a = json(r.stdout).report.judges[0].pairwise;
    expect(a.positionalAgreement.value).toBe(0);
    expect(a.firstPositionWins.value).toBe(1);
    expect([a.accuracy.original.value, a.accuracy.swapped.value]).toEqual([8 / 12, 4 / 12]);
  });

  it("refuses a suite with problems, and a judge that cannot be called, before any call", async () => {
    const db = enableProviders(newDb(), ["local"]);
    const dir = tempDir();
    writeJson(path.join(dir, "criterion.json"), { id: "x", type: "pairwise" });
    writeJson(path.join(dir, "dataset.json"), []);
    const env = { JURY_DB: db, JURY_HOOK_LOG: `${db}.log`, JURY_LOCAL_BASE_URL: server.baseURL };
    const before = server.requests.length;
    const r = await runJury(["agreement", "pairwise", dir, "--judges", "local:first"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("dataset.json:1: (top level): must be a non-empty JSON list of items");
    const off = await runJury(["agreement", "pairwise", ex("pairwise"), "--judges", "openai:gpt-x"], { env });
    expect(off.code).toBe(2);
    expect(server.requests.length).toBe(before);
    const none = await runJury(["agreement", "pairwise", ex("pairwise")], { env });
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining("--judges")]);
  });
});

describe("jury agreement shuffles", () => {
  it("the memory judge under two shuffles: per-query Jaccard, mean with an interval, identical share", async () => {
    const db = newDb();
    const handle = createDb(db);
    const { insertExperiment, insertExperimentResult } = await import("@/db/queries/experiments");
    const config = { kind: "bm25_judge", mode: "auto", topK: 3, poolSize: 5, shuffle: true } as never;
    const kept = {
      "exp-a": [["m1", "m2"], ["m3"], ["m4"]],
      "exp-b": [["m2", "m1"], ["m3", "m5"], ["m6"]],
    };
    for (const [id, sets] of Object.entries(kept)) {
      insertExperiment(handle, { id, collection: "c", label: id, config });
      for (const [i, retrieved] of sets.entries())
        insertExperimentResult(handle, {
          experimentId: id,
          queryId: `q${i + 1}`,
          candidates: [],
          retrieved,
          path: "judge",
          latencyMs: 1,
        });
    }
    handle.$client.close();
    const r = jury(db, ["agreement", "shuffles", "exp-a", "exp-b", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = json(r.stdout);
    // Jaccard 1, 1/2, 0 → mean 1/2; one query of three kept identically
    expect(out.perQuery.map((q: { jaccard: number }) => q.jaccard)).toEqual([1, 0.5, 0]);
    expect(out.meanJaccard).toMatchObject({ value: 0.5, n: 3 });
    expect(out.identical).toMatchObject({ value: 1 / 3, n: 3 });
    const missing = jury(db, ["agreement", "shuffles", "exp-a", "nope"]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('"nope"')]);
  });
});
