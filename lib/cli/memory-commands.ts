// The short `jury memory` subcommands, one function each: search, the three imports, the two TREC
// exports. (`experiment` and `metrics` live in memory-experiment.ts and memory-metrics.ts.)
import path from "node:path";
import { JuryError } from "../errors";
import { resolutionReason } from "../memory/collection";
import type { MemoryJudgeSettings } from "../settings/schema";
import { type MemoryContext, need, out, wholeNumber } from "./memory-shared";

/** `memory search "<query>"`: the memories found (judged leniently when the judge is on), logged. */
export async function searchCommand({
  db,
  values,
  positionals,
  collection,
  resolved,
}: MemoryContext): Promise<number> {
  const query = positionals.join(" ");
  if (!query.trim()) throw new JuryError("usage", 'Give a query: jury memory search "retry policy"');
  const { readSettings } = await import("../settings/store");
  const { retrieveMemories } = await import("../memory/retrieve");
  const { requireCollection } = await import("../memory/study-report");
  const mode = (values.mode ?? "search") as "auto" | "search";
  if (mode !== "auto" && mode !== "search")
    throw new JuryError("usage", `--mode must be auto or search, got "${values.mode}"`);
  const limit = values.limit === undefined ? undefined : wholeNumber("limit", values.limit, 1, 100);
  await requireCollection(db, collection, { resolved });
  const settings = await readSettings(db);
  const r = await retrieveMemories({
    db,
    collection,
    prompt: query,
    mode,
    settings,
    judge: limit === undefined ? undefined : searchLimit(settings.memoryJudge, mode, limit),
  });
  const { logSearch, searchCandidates } = await import("./memory-log");
  const logId = await logSearch(db, { collection, query, mode, outcome: r });
  if (values.json)
    out({
      log_id: logId,
      // which collection was read, and why (docs/memory.md: which collection is read)
      collection: resolved.name,
      collection_from: resolutionReason(resolved),
      path: r.path,
      error: r.error,
      memories: r.memories,
      candidates: searchCandidates(r),
    });
  else {
    if (r.memories.length === 0) out(`No memory matches (${r.path}).`);
    for (const m of r.memories)
      out(`[${m.category}] ${m.title}  (${m.memoryId}; tags: ${m.tags.join(", ")})`);
    if (r.error) process.stderr.write(`note: ${r.path}: ${r.error}\n`);
  }
  return 0;
}

/**
 * `memory search --limit N`: at most N memories shown. The judge (when on) keeps at most N of its
 * pool; without it, BM25's top N, so the pool is widened to N when it is smaller.
 */
function searchLimit(
  cfg: MemoryJudgeSettings,
  mode: "auto" | "search",
  limit: number,
): Partial<MemoryJudgeSettings> {
  const m = cfg.modes[mode];
  const pool = m.candidate_pool_size ?? cfg.candidate_pool_size;
  return {
    candidate_pool_size: cfg.enabled ? pool : Math.max(pool, limit),
    modes: {
      ...cfg.modes,
      [mode]: { ...m, max_output: limit, candidate_pool_size: cfg.enabled ? pool : Math.max(pool, limit) },
    },
  };
}

/** `memory import <folder>`: JSON memory files. */
export async function importCommand({ db, positionals, collection }: MemoryContext): Promise<number> {
  const { importMemoryFolder } = await import("../memory/import");
  const n = await importMemoryFolder(db, path.resolve(need(positionals[0], "a folder")), collection);
  out(`Imported ${n} memories into "${collection}".`);
  return 0;
}

/** `memory import-beir <dir>`: a BEIR collection, one qrels split. */
export async function importBeirCommand({
  db,
  values,
  positionals,
  collection,
}: MemoryContext): Promise<number> {
  const { importBeir } = await import("../memory/import");
  const dir = path.resolve(need(positionals[0], "a folder"));
  const r = await importBeir(db, dir, collection, { split: values.split });
  out(
    values.json
      ? r
      : [
          `Read ${r.files.join(", ")} from ${dir} (split ${r.split}).`,
          `Imported ${r.memories} memories, ${r.queries} queries and ${r.qrels} relevant judgments into "${collection}".`,
          ...(r.queriesNotInSplit
            ? [
                `${r.queriesNotInSplit} queries of queries.jsonl have no judgment in the ${r.split} split and were left out.`,
              ]
            : []),
          "Labels follow trec_eval: a document the qrels do not list counts as not relevant.",
        ].join("\n"),
  );
  return 0;
}

/** `memory import-study <dir>`: memories/ and queries.json, with or without ground truth. */
export async function importStudyCommand({
  db,
  values,
  positionals,
  collection,
}: MemoryContext): Promise<number> {
  if (values.split !== undefined)
    throw new JuryError("usage", "--split is for import-beir, not import-study");
  const { importStudyFolder } = await import("../memory/import");
  const r = await importStudyFolder(db, path.resolve(need(positionals[0], "a folder")), collection);
  out(
    values.json
      ? r
      : [
          `Imported ${r.memories} memories, ${r.queries} queries and ${r.qrels} relevant judgments into "${collection}" (${r.origin === "example" ? "example labels" : "imported labels"}).`,
          ...(r.needsAnnotation
            ? [
                `${r.needsAnnotation} of ${r.queries} queries have no "relevant" list: they need annotation (dashboard: /memory/${collection}/annotate) and are left out of every metric until then.`,
              ]
            : []),
        ].join("\n"),
  );
  return 0;
}

/** The example study's project, and so its collection: a project's memories live under its name. */
const EXAMPLE_COLLECTION = "shop-api";

/**
 * `memory import-example`: the example study shipped with Jury (examples/memory-study) into
 * "shop-api", as the dashboard's "Import the example" button does; one already there is left as it is
 * (a person may have relabelled it since).
 */
export async function importExampleCommand({ db, values }: MemoryContext): Promise<number> {
  const { getStudyMeta } = await import("../../db/queries/study");
  if (await getStudyMeta(db, EXAMPLE_COLLECTION)) {
    out(
      values.json
        ? { collection: EXAMPLE_COLLECTION, imported: false }
        : `The example study is already in "${EXAMPLE_COLLECTION}": left as it is.`,
    );
    return 0;
  }
  const { importStudyFolder } = await import("../memory/import");
  const { installRoot } = await import("../../db/path");
  const folder = path.join(installRoot(), "examples", "memory-study");
  const r = await importStudyFolder(db, folder, EXAMPLE_COLLECTION);
  out(
    values.json
      ? { collection: EXAMPLE_COLLECTION, imported: true, ...r }
      : `Imported the example study: ${r.memories} memories, ${r.queries} queries and ${r.qrels} relevant judgments into "${EXAMPLE_COLLECTION}".`,
  );
  return 0;
}

/** `memory export-qrels`: the collection's ground truth as TREC qrels. */
export async function exportQrelsCommand({ db, collection, resolved }: MemoryContext): Promise<number> {
  const { getQrels } = await import("@/db/queries/study");
  const { requireCollection } = await import("../memory/study-report");
  await requireCollection(db, collection, { resolved });
  const { writeQrels } = await import("../memory/trec");
  process.stdout.write(writeQrels(await getQrels(db, collection)));
  return 0;
}

/** `memory export-run <id>`: an experiment as a TREC run (a BM25 run gives its ranked candidates). */
export async function exportRunCommand({ db, positionals }: MemoryContext): Promise<number> {
  const { getExperiment, getExperimentResults } = await import("@/db/queries/experiments");
  const { writeRun } = await import("../memory/trec");
  const { runOf } = await import("../memory/study-metrics");
  const id = need(positionals[0], "an experiment id");
  const e = await getExperiment(db, id);
  if (!e) throw new JuryError("usage", `No experiment "${id}"`);
  process.stdout.write(
    writeRun(
      runOf(await getExperimentResults(db, id), e.config.kind === "bm25" ? "candidates" : "retrieved"),
      id,
    ),
  );
  return 0;
}

/** `memory export-labels <collection> [--format csv|qrels]` and `memory export-metrics <collection> [--format csv|json]`: the study page's export files. */
export async function exportStudyCommand(
  { db, values, positionals }: MemoryContext,
  what: "labels" | "metrics",
): Promise<number> {
  const { exportStudy } = await import("../memory/study-export");
  const { readSettings } = await import("../settings/store");
  const collection = need(positionals[0], "a collection");
  const spec =
    what === "labels"
      ? { what, format: (values.format ?? "csv") as "csv" | "qrels" }
      : { what, format: (values.format ?? "csv") as "csv" | "json" };
  const { prices } = await readSettings(db);
  process.stdout.write((await exportStudy(db, collection, spec, prices)).body);
  return 0;
}
