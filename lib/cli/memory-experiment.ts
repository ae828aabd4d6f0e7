// `jury memory experiment`: resume an interrupted experiment, or read a configuration from the flags,
// check its judge is callable, run it over every study query and print its metrics.
import { JuryError } from "../errors";
import type { ExperimentConfig } from "../memory/experiment";
import type { Settings } from "../settings/schema";
import { printMetrics } from "./memory-metrics";
import { type MemoryContext, wholeNumber } from "./memory-shared";
import { cliActor } from "./users";

/** `\r12/40 queries` on a terminal's stderr; nothing when stderr is not one. */
const progressLine = () =>
  process.stderr.isTTY ? (d: number, t: number) => process.stderr.write(`\r${d}/${t} queries`) : undefined;

export async function experimentCommand(c: MemoryContext): Promise<number> {
  if (c.values.resume) return resumeExperiment(c, c.values.resume);
  const { db, collection, values } = c;
  const { runExperiment } = await import("../memory/experiment");
  const { config, settings } = await experimentConfig(c);
  // the judge must be callable (provider enabled, key or base URL set) before anything is stored
  if (config.model)
    (await import("../providers/preflight")).assertJudgesReady([config.model], settings, {
      what: "No experiment started",
    });
  const id = await runExperiment(db, {
    collection,
    config,
    settings,
    onProgress: progressLine(),
    createdBy: cliActor(),
  });
  if (process.stderr.isTTY) process.stderr.write("\n");
  return printMetrics(db, id, Boolean(values.json));
}

/** `--resume <id>`: finishes an experiment that did not end, keeping the queries already done. */
async function resumeExperiment({ db, values }: MemoryContext, id: string): Promise<number> {
  const { readSettings } = await import("../settings/store");
  const { executeExperiment } = await import("../memory/experiment");
  const { getExperiment } = await import("@/db/queries/experiments");
  const e = await getExperiment(db, id);
  if (!e) throw new JuryError("usage", `No experiment "${id}"`);
  if (e.status === "done") throw new JuryError("usage", `Experiment ${e.id} is already done`);
  if (e.config.kind !== "bm25" && e.config.model)
    (await import("../providers/preflight")).assertJudgesReady([e.config.model], await readSettings(db), {
      what: `Experiment ${e.id} not resumed`,
    });
  const status = await executeExperiment(db, e.id, {
    collection: e.collection,
    config: e.config,
    settings: await readSettings(db),
    onProgress: progressLine(),
  });
  if (process.stderr.isTTY) process.stderr.write("\n");
  await printMetrics(db, e.id, Boolean(values.json));
  return status === "done" ? 0 : 3;
}

/**
 * The configuration the flags describe, with the collection's defaults: a qrels (BEIR) collection is
 * measured as BEIR does (documents' text searched, a ranked list); an annotated study as the hook runs
 * (auto mode, the judge's top-k). Flags that do not fit the kind are usage errors. With the settings
 * it read, which the run uses.
 */
async function experimentConfig({
  db,
  collection,
  resolved,
  values,
}: MemoryContext): Promise<{ config: ExperimentConfig; settings: Settings }> {
  const { readSettings } = await import("../settings/store");
  const { RETRIEVAL_KINDS } = await import("../memory/kinds");
  const { requireCollection, labelsInfo } = await import("../memory/study-report");
  const { BM25_RUN_DEPTH, MAX_RUN_DEPTH } = await import("../memory/experiment");
  const kind = (values.kind ?? "bm25") as (typeof RETRIEVAL_KINDS)[number];
  if (!RETRIEVAL_KINDS.includes(kind))
    throw new JuryError("usage", `--kind must be one of ${RETRIEVAL_KINDS.join(", ")}, got "${kind}"`);
  await requireCollection(db, collection, { needQueries: true, resolved });
  const qrels = (await labelsInfo(db, collection)).convention === "qrels";
  const mode = (values.mode ?? (qrels ? "search" : "auto")) as "auto" | "search";
  if (mode !== "auto" && mode !== "search")
    throw new JuryError("usage", `--mode must be auto or search, got "${mode}"`);
  const settings = await readSettings(db);
  const int = (name: string, v: string | undefined, d: number, max: number) =>
    v === undefined ? d : wholeNumber(name, v, 1, max);
  if (kind === "bm25" && values.pool !== undefined)
    throw new JuryError("usage", "--pool is the judge's candidate pool: a bm25 run takes --depth instead");
  if (kind !== "bm25" && values.depth !== undefined)
    throw new JuryError("usage", "--depth is for bm25 runs: a judge run's ranking is its pool (--pool)");
  const topK = int(
    "top-k",
    values["top-k"],
    qrels ? 10 : settings.memoryJudge.modes[mode].max_output,
    MAX_RUN_DEPTH,
  );
  const depth =
    kind === "bm25" ? int("depth", values.depth, Math.max(BM25_RUN_DEPTH, topK), MAX_RUN_DEPTH) : undefined;
  if (depth !== undefined && topK > depth)
    throw new JuryError(
      "usage",
      `--top-k ${topK} is deeper than --depth ${depth}: the run keeps only ${depth} candidates`,
    );
  const poolSize =
    kind === "bm25"
      ? (depth ?? BM25_RUN_DEPTH)
      : int("pool", values.pool, settings.memoryJudge.candidate_pool_size, 100);
  if (kind !== "bm25" && topK > 100)
    throw new JuryError(
      "usage",
      `--top-k must be a whole number from 1 to 100 for a judge run, got "${topK}"`,
    );
  const config = {
    kind,
    mode,
    topK,
    poolSize,
    depth,
    shuffle: !values["fixed-order"],
    shuffleSalt: values.salt,
    model: kind === "bm25" ? undefined : (values.model ?? settings.memoryJudge.model),
    n: int("n", values.n, 1, 10),
    includeBody: Boolean(values.body),
  };
  return { config, settings };
}
