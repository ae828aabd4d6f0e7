import path from "node:path";
import { JuryError } from "../errors";
import { parseMemoryArgs } from "./memory-options";

export const MEMORY_HELP = `Usage: jury memory <command> [options]

  retrieve                      Claude Code UserPromptSubmit hook: hook JSON on stdin, <memory-context> on stdout
  search "<query>" [--json]     on-demand search (lenient judge when enabled)
      --mode auto|search (default search)   --limit N (memories shown, 1 to 100)
  log [--json] [--limit N]      every retrieval logged: hook, search, skill (jury memory log --help)
  import <folder>               import JSON memory files (one memory or an array per file)
  import-beir <dir> [--split s] import a BEIR collection (corpus.jsonl, queries.jsonl, qrels/<split>.tsv;
                                default split: test when present)
  import-study <dir>            import a study folder (memories/, queries.json; a query without
                                "relevant" needs annotation and is left out of the metrics)
  experiment [options]          run a configuration over every study query, print its metrics
      --kind bm25|single|dual_strict|dual_lenient   --mode auto|search   --top-k 3   --pool 15
      --depth 100 (BM25: ranked candidates kept, up to 1000)
      --model provider:model    --n 1    --fixed-order    --salt <s>    --body
      defaults: a qrels (BEIR) collection --mode search --top-k 10; an annotated study --mode auto
      and the judge's top-k for that mode
      --resume <experiment-id>  finish an interrupted experiment (queries already done are kept)
  metrics <experiment-id>       print an experiment's metrics
  export-qrels                  ground truth as TREC qrels (stdout)
  export-run <experiment-id>    results as a TREC run file (stdout; BM25 runs give their ranked candidates)

Common: --collection <name> (default: $JURY_MEMORY_COLLECTION or "default"), --json
jury memory <command> --help shows a command's options; each takes only its own.
`;

const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "—");

export async function memoryCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "log") return (await import("./memory-log")).memoryLogCommand(rest); // its own options
  // each subcommand takes only its own options (lib/cli/memory-options.ts): anything else is a usage error
  const { help, values, positionals, collection } = parseMemoryArgs(sub, rest, MEMORY_HELP);
  if (help !== undefined) {
    process.stdout.write(help);
    return 0;
  }
  if (sub === "retrieve") return (await import("./memory-hook")).memoryRetrieveHook(collection); // bin/jury.cjs runs the hook from dist/hook.cjs instead
  const { getDb } = await import("@/db/client");
  const db = getDb();
  const out = (v: unknown) =>
    process.stdout.write(`${typeof v === "string" ? v : JSON.stringify(v, null, 2)}\n`);

  switch (sub) {
    case "search": {
      const query = positionals.join(" ");
      if (!query.trim()) throw new JuryError("usage", 'Give a query: jury memory search "retry policy"');
      const { readSettings } = await import("../settings/store");
      const { retrieveMemories } = await import("../memory/retrieve");
      const { requireCollection } = await import("../memory/study-report");
      const mode = (values.mode ?? "search") as "auto" | "search";
      if (mode !== "auto" && mode !== "search")
        throw new JuryError("usage", `--mode must be auto or search, got "${values.mode}"`);
      const limit = values.limit === undefined ? undefined : wholeNumber("limit", values.limit, 1, 100);
      requireCollection(db, collection);
      const settings = readSettings(db);
      const r = await retrieveMemories({
        db,
        collection,
        prompt: query,
        mode,
        settings,
        judge: limit === undefined ? undefined : searchLimit(settings.memoryJudge, mode, limit),
      });
      const { logSearch, searchCandidates } = await import("./memory-log");
      const logId = logSearch(db, { collection, query, mode, outcome: r });
      if (values.json)
        out({
          log_id: logId,
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
    case "import": {
      const { importMemoryFolder } = await import("../memory/import");
      const n = importMemoryFolder(db, path.resolve(need(positionals[0], "a folder")), collection);
      out(`Imported ${n} memories into "${collection}".`);
      return 0;
    }
    case "import-beir": {
      const { importBeir } = await import("../memory/import");
      const dir = path.resolve(need(positionals[0], "a folder"));
      const r = importBeir(db, dir, collection, { split: values.split });
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
    case "import-study": {
      if (values.split !== undefined)
        throw new JuryError("usage", "--split is for import-beir, not import-study");
      const { importStudyFolder } = await import("../memory/import");
      const r = importStudyFolder(db, path.resolve(need(positionals[0], "a folder")), collection);
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
    case "experiment": {
      const { readSettings } = await import("../settings/store");
      const { runExperiment, executeExperiment } = await import("../memory/experiment");
      const onProgress = process.stderr.isTTY
        ? (d: number, t: number) => process.stderr.write(`\r${d}/${t} queries`)
        : undefined;
      if (values.resume) {
        const { getExperiment } = await import("@/db/queries/experiments");
        const e = getExperiment(db, values.resume);
        if (!e) throw new JuryError("usage", `No experiment "${values.resume}"`);
        if (e.status === "done") throw new JuryError("usage", `Experiment ${e.id} is already done`);
        if (e.config.kind !== "bm25" && e.config.model)
          (await import("../providers/preflight")).assertJudgesReady([e.config.model], readSettings(db), {
            what: `Experiment ${e.id} not resumed`,
          });
        const status = await executeExperiment(db, e.id, {
          collection: e.collection,
          config: e.config,
          settings: readSettings(db),
          onProgress,
        });
        if (process.stderr.isTTY) process.stderr.write("\n");
        await printMetrics(db, e.id, Boolean(values.json));
        return status === "done" ? 0 : 3;
      }
      const { RETRIEVAL_KINDS } = await import("../memory/kinds");
      const { requireCollection, labelsInfo } = await import("../memory/study-report");
      const { BM25_RUN_DEPTH, MAX_RUN_DEPTH } = await import("../memory/experiment");
      const kind = (values.kind ?? "bm25") as (typeof RETRIEVAL_KINDS)[number];
      if (!RETRIEVAL_KINDS.includes(kind))
        throw new JuryError("usage", `--kind must be one of ${RETRIEVAL_KINDS.join(", ")}, got "${kind}"`);
      requireCollection(db, collection, { needQueries: true });
      // a qrels (BEIR) collection is measured as BEIR does: documents' text searched, a ranked list;
      // an annotated study as the hook runs: auto mode, the judge's top-k
      const qrels = labelsInfo(db, collection).convention === "qrels";
      const mode = (values.mode ?? (qrels ? "search" : "auto")) as "auto" | "search";
      if (mode !== "auto" && mode !== "search")
        throw new JuryError("usage", `--mode must be auto or search, got "${mode}"`);
      const settings = readSettings(db);
      const int = (name: string, v: string | undefined, d: number, max: number) =>
        v === undefined ? d : wholeNumber(name, v, 1, max);
      if (kind === "bm25" && values.pool !== undefined)
        throw new JuryError(
          "usage",
          "--pool is the judge's candidate pool: a bm25 run takes --depth instead",
        );
      if (kind !== "bm25" && values.depth !== undefined)
        throw new JuryError("usage", "--depth is for bm25 runs: a judge run's ranking is its pool (--pool)");
      const topK = int(
        "top-k",
        values["top-k"],
        qrels ? 10 : settings.memoryJudge.modes[mode].max_output,
        MAX_RUN_DEPTH,
      );
      const depth =
        kind === "bm25"
          ? int("depth", values.depth, Math.max(BM25_RUN_DEPTH, topK), MAX_RUN_DEPTH)
          : undefined;
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
      // the judge must be callable (provider enabled, key or base URL set) before anything is stored
      if (config.model)
        (await import("../providers/preflight")).assertJudgesReady([config.model], settings, {
          what: "No experiment started",
        });
      const id = await runExperiment(db, {
        collection,
        config,
        settings,
        onProgress,
      });
      if (process.stderr.isTTY) process.stderr.write("\n");
      return printMetrics(db, id, Boolean(values.json));
    }
    case "metrics":
      return printMetrics(
        db,
        need(positionals[0], "an experiment id"),
        Boolean(values.json),
        values.collection,
      );
    case "export-qrels": {
      const { getQrels } = await import("@/db/queries/study");
      const { requireCollection } = await import("../memory/study-report");
      requireCollection(db, collection);
      const { writeQrels } = await import("../memory/trec");
      process.stdout.write(writeQrels(getQrels(db, collection)));
      return 0;
    }
    case "export-run": {
      const { getExperiment, getExperimentResults } = await import("@/db/queries/experiments");
      const { writeRun } = await import("../memory/trec");
      const { runOf } = await import("../memory/study-metrics");
      const id = need(positionals[0], "an experiment id");
      const e = getExperiment(db, id);
      if (!e) throw new JuryError("usage", `No experiment "${id}"`);
      process.stdout.write(
        writeRun(
          runOf(getExperimentResults(db, id), e.config.kind === "bm25" ? "candidates" : "retrieved"),
          id,
        ),
      );
      return 0;
    }
    default:
      throw new JuryError("usage", `Unknown memory command "${sub}".\n\n${MEMORY_HELP}`);
  }
}

/** A whole-number flag within bounds, or a usage error naming it and the value. */
function wholeNumber(name: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isInteger(n) || n < min || n > max)
    throw new JuryError("usage", `--${name} must be a whole number from ${min} to ${max}, got "${v}"`);
  return n;
}

/**
 * `memory search --limit N`: at most N memories shown. The judge (when on) keeps at most N of its
 * pool; without it, BM25's top N, so the pool is widened to N when it is smaller.
 */
function searchLimit(
  cfg: import("../settings/schema").MemoryJudgeSettings,
  mode: "auto" | "search",
  limit: number,
): Partial<import("../settings/schema").MemoryJudgeSettings> {
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

function need(v: string | undefined, what: string): string {
  if (!v) throw new JuryError("usage", `Give ${what}. See jury memory --help`);
  return v;
}

async function printMetrics(
  db: import("@/db/client").Db,
  id: string,
  json: boolean,
  collection?: string,
): Promise<number> {
  const { readSettings } = await import("../settings/store");
  const { singleExperimentReport, requireCollection } = await import("../memory/study-report");
  const { describePathMix, evidenceLine, formatCost, MIN_JUDGE_ANSWERED } = await import(
    "../memory/study-metrics"
  );
  if (collection !== undefined) requireCollection(db, collection);
  const r = singleExperimentReport(db, id, readSettings(db).prices);
  const e = r.experiment;
  if (collection !== undefined && e.collection !== collection)
    throw new JuryError(
      "usage",
      `experiment ${id} belongs to collection "${e.collection}", not "${collection}"`,
    );
  const m = r.metrics;
  if (json) {
    process.stdout.write(
      `${JSON.stringify(
        {
          experiment_id: id,
          label: e.label,
          collection: e.collection,
          status: e.status,
          complete: r.complete,
          notice: r.notice ?? null,
          queries: { finished: r.finished, planned: r.planned, needs_annotation: r.needsAnnotation },
          labels: r.labels,
          config: e.config,
          min_judge_answered: MIN_JUDGE_ANSWERED,
          evidence: evidenceLine(m),
          metrics: m,
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const row = (c: {
    label: string;
    mean: number;
    low: number;
    high: number;
    n: number;
    why?: string;
    note?: string;
  }) =>
    c.n === 0
      ? `    ${c.label.padEnd(13)} —  n=0 (${c.why ?? "no query to average over"})`
      : `    ${c.label.padEnd(13)} ${pct(c.mean).padStart(6)}  [${pct(c.low)}, ${pct(c.high)}]  n=${c.n} queries${c.note ? `  (${c.note})` : ""}`;
  const qrels = m.convention === "qrels";
  const set = (s: NonNullable<typeof m.judgeAnswered>) =>
    qrels
      ? [
          row(s.precisionAtK),
          row({ ...s.precision, label: "set precision" }),
          row({ ...s.recall, label: "set recall" }),
          row({ ...s.f1, label: "set F1" }),
        ]
      : [row(s.precision), row(s.recall), row(s.f1), row(s.precisionAtK)];
  const mix = m.pathMix;
  const cost =
    m.cost.state === "unpriced"
      ? `unpriced (${m.cost.model} has no price in Settings; ${m.cost.inputTokens} input and ${m.cost.outputTokens} output tokens)`
      : m.cost.state === "free"
        ? "none (no judge calls)"
        : `${formatCost(m.cost, "perQuery")}/query, ${formatCost(m.cost, "perMonth")}/month at 100 prompts a day`;
  process.stdout.write(
    [
      `${id}: ${e.label}`,
      ...(r.notice ? [`  NOTE: ${r.notice}`] : []),
      `  labels: ${r.labels.description}`,
      ...(r.needsAnnotation
        ? [`  ${r.needsAnnotation} queries need annotation: left out of every metric`]
        : []),
      `  paths: ${describePathMix(mix)}`,
      ...mix.errors.slice(0, 3).map((x) => `    ${x.n}× ${x.message.slice(0, 160)}`),
      `  all queries (what the hook would inject, fallbacks included):`,
      ...set(m),
      ...(m.judgeAnswered
        ? [
            `  queries the judge answered (${mix.answered} of ${mix.queries}${mix.asked && mix.answeredShare < MIN_JUDGE_ANSWERED ? `; below ${Math.round(MIN_JUDGE_ANSWERED * 100)} %, never called best` : ""}):`,
            ...set(m.judgeAnswered),
          ]
        : []),
      `  ranked (${e.config.kind === "bm25" ? "BM25 candidates" : "what the judge kept"}):`,
      row(m.ndcg10),
      row(m.recall100),
      row(m.recall1000),
      `  ${evidenceLine(m)}`,
      `  latency p50 ${m.latencyP50.toFixed(1)} ms, p95 ${m.latencyP95.toFixed(1)} ms; cost ${cost}`,
      "",
    ].join("\n"),
  );
  return 0;
}
