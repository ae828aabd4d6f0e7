import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { SCRIPTED_PORT } from "./constants";

/** What seedDatabase stored: ids to visit. */
export type Seeded = {
  runs: string[];
  review: string;
  collection: string;
  firstCase: string;
  /** the runs' panel, in its order */
  judges: string[];
};

/**
 * Three judges with realistic, long names: the QA suite's 5 cases × 6 criteria (4 LLM, 2
 * deterministic) under them is the size of run a phone must show without sideways scrolling.
 */
export const SEED_JUDGES = [
  "local:llama3.1:8b-instruct",
  "local:qwen2.5:14b-instruct",
  "local:mistral-small:24b",
];

function jury(db: string, args: string[], okStatuses = [0]): string {
  const r = spawnSync("node", ["bin/jury.cjs", ...args], {
    encoding: "utf8",
    timeout: 120_000,
    env: {
      ...process.env,
      JURY_DB: db,
      JURY_LOCAL_BASE_URL: `http://127.0.0.1:${SCRIPTED_PORT}/v1`,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  if (!okStatuses.includes(r.status ?? -1))
    throw new Error(`jury ${args.join(" ")} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/**
 * A fresh database holding what every page can show, stored the way a user stores it (the CLI,
 * against the scripted judge the e2e config starts): two runs of the QA suite with three judges, N=1
 * and N=2 (so /runs/compare has a pair), a code review, and the example memory study with a BM25
 * experiment.
 */
export function seedDatabase(db: string): Seeded {
  fs.rmSync(path.dirname(db), { recursive: true, force: true });
  fs.mkdirSync(path.dirname(db), { recursive: true });
  jury(db, ["settings", "set", "providers.local.enabled", "true"]);
  const runs: string[] = [];
  for (const n of ["1", "2"]) {
    // exit 1: some verdict failed, which is fine here
    const out = jury(
      db,
      ["eval", "examples/suites/qa", "--judges", SEED_JUDGES.join(","), "--n", n, "--json"],
      [0, 1],
    );
    const id = /"(run_\d{8}_[0-9a-f]{8})"/.exec(out)?.[1];
    if (!id) throw new Error(`no run id in jury eval's output:\n${out.slice(0, 500)}`);
    runs.push(id);
  }
  const ex = path.resolve("examples/reviews/hardcoded-tests");
  const review = jury(
    db,
    [
      "review",
      "--diff",
      `${ex}/change.diff`,
      "--criteria",
      `${ex}/criteria.md`,
      "--passed",
      "4",
      "--failed",
      "0",
      "--judges",
      "local:a,local:b",
      "--n",
      "1",
      "--title",
      "seeded review",
    ],
    [0, 1],
  );
  const reviewId = /^(rev_[0-9a-f]{10})/.exec(review)?.[1];
  if (!reviewId) throw new Error(`no review id in jury review's output:\n${review.slice(0, 500)}`);
  const collection = "shop-api";
  jury(db, ["memory", "import-study", "examples/memory-study", "--collection", collection]);
  jury(db, ["memory", "experiment", "--kind", "bm25", "--collection", collection]);
  const firstCase = fs
    .readdirSync("examples/suites/qa/cases")
    .filter((f) => f.endsWith(".json"))
    .sort()[0]
    .replace(/\.json$/, "");
  return { runs, review: reviewId, collection, firstCase, judges: SEED_JUDGES };
}
