import path from "node:path";
import { parseArgs } from "node:util";
import { JuryError } from "../errors";

export const MEMORY_HELP = `Usage: jury memory <command> [options]

  retrieve                      Claude Code UserPromptSubmit hook: hook JSON on stdin, <memory-context> on stdout
  search "<query>" [--json]     on-demand search (lenient judge when enabled)
  import <folder>               import JSON memory files (one memory or an array per file)
  import-beir <dir>             import a BEIR collection (corpus.jsonl, queries.jsonl, qrels/*.tsv)
  import-study <dir>            import a study folder (memories/, queries.json with ground truth)
  experiment [options]          run a configuration over every study query, print its metrics
      --kind bm25|single|dual_strict|dual_lenient   --mode auto|search   --top-k 3   --pool 15
      --model provider:model    --n 1    --fixed-order    --salt <s>    --body
      --resume <experiment-id>  finish an interrupted experiment (queries already done are kept)
  metrics <experiment-id>       print an experiment's metrics
  export-qrels                  ground truth as TREC qrels (stdout)
  export-run <experiment-id>    results as a TREC run file (stdout; BM25 runs give their ranked candidates)

Common: --collection <name> (default: $JURY_MEMORY_COLLECTION or "default"), --json
`;

const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "—");

export async function memoryCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      collection: { type: "string" },
      json: { type: "boolean" },
      kind: { type: "string" },
      mode: { type: "string" },
      "top-k": { type: "string" },
      pool: { type: "string" },
      model: { type: "string" },
      n: { type: "string" },
      "fixed-order": { type: "boolean" },
      salt: { type: "string" },
      body: { type: "boolean" },
      resume: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  const collection = values.collection ?? process.env.JURY_MEMORY_COLLECTION ?? "default";
  if (sub === "retrieve") return (await import("./memory-hook")).memoryRetrieveHook(collection); // bin/jury.cjs runs the hook from dist/hook.cjs instead
  if (!sub || values.help || sub === "help") {
    process.stdout.write(MEMORY_HELP);
    return 0;
  }
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
      const r = await retrieveMemories({
        db,
        collection,
        prompt: query,
        mode: "search",
        settings: readSettings(db),
      });
      if (values.json) out({ path: r.path, error: r.error, memories: r.memories });
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
    case "import-beir":
    case "import-study": {
      const mod = await import("../memory/import");
      const fn = sub === "import-beir" ? mod.importBeir : mod.importStudyFolder;
      const r = fn(db, path.resolve(need(positionals[0], "a folder")), collection);
      out(
        values.json
          ? r
          : `Imported ${r.memories} memories, ${r.queries} queries and ${r.qrels} relevant judgments into "${collection}".`,
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
      const kind = (values.kind ?? "bm25") as (typeof RETRIEVAL_KINDS)[number];
      if (!RETRIEVAL_KINDS.includes(kind))
        throw new JuryError("usage", `--kind must be one of ${RETRIEVAL_KINDS.join(", ")}, got "${kind}"`);
      const mode = (values.mode ?? "auto") as "auto" | "search";
      if (mode !== "auto" && mode !== "search")
        throw new JuryError("usage", `--mode must be auto or search, got "${mode}"`);
      const settings = readSettings(db);
      const int = (name: string, v: string | undefined, d: number, max: number) => {
        const n = v === undefined ? d : Number(v);
        if (!Number.isInteger(n) || n < 1 || n > max)
          throw new JuryError("usage", `--${name} must be a whole number from 1 to ${max}, got "${v}"`);
        return n;
      };
      const config = {
        kind,
        mode,
        topK: int("top-k", values["top-k"], settings.memoryJudge.modes[mode].max_output, 100),
        poolSize: int("pool", values.pool, settings.memoryJudge.candidate_pool_size, 100),
        shuffle: !values["fixed-order"],
        shuffleSalt: values.salt,
        model: kind === "bm25" ? undefined : (values.model ?? settings.memoryJudge.model),
        n: int("n", values.n, 1, 10),
        includeBody: Boolean(values.body),
      };
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
      return printMetrics(db, need(positionals[0], "an experiment id"), Boolean(values.json));
    case "export-qrels": {
      const { getQrels } = await import("@/db/queries/study");
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

function need(v: string | undefined, what: string): string {
  if (!v) throw new JuryError("usage", `Give ${what}. See jury memory --help`);
  return v;
}

async function printMetrics(db: import("@/db/client").Db, id: string, json: boolean): Promise<number> {
  const { getExperiment, getExperimentResults } = await import("@/db/queries/experiments");
  const { getQrels } = await import("@/db/queries/study");
  const { experimentMetrics } = await import("../memory/study-metrics");
  const e = getExperiment(db, id);
  if (!e) throw new JuryError("usage", `No experiment "${id}"`);
  const { listStudyQueries } = await import("@/db/queries/study");
  const results = getExperimentResults(db, id);
  const planned = listStudyQueries(db, e.collection).length;
  const complete = e.status === "done" && results.length >= planned;
  const notice = complete
    ? undefined
    : `experiment ${e.status}: ${results.length} of ${planned} queries finished; figures cover only those${e.status === "interrupted" ? ` (resume: jury memory experiment --resume ${id})` : ""}`;
  const m = experimentMetrics(results, getQrels(db, e.collection), e.config.topK, e.config.kind === "bm25");
  if (json) {
    process.stdout.write(
      `${JSON.stringify(
        {
          experiment_id: id,
          label: e.label,
          status: e.status,
          complete,
          queries: { finished: results.length, planned },
          config: e.config,
          metrics: m,
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const row = (c: { label: string; mean: number; low: number; high: number; n: number }) =>
    `  ${c.label.padEnd(11)} ${pct(c.mean).padStart(6)}  [${pct(c.low)}, ${pct(c.high)}]  n=${c.n} queries`;
  process.stdout.write(
    [
      `${id}: ${e.label}`,
      ...(notice ? [`  NOTE: ${notice}`] : []),
      row(m.precision),
      row(m.recall),
      row(m.f1),
      row(m.precisionAtK),
      row(m.ndcg10),
      row(m.recall100),
      `  needs annotation: ${m.needsAnnotation} of ${m.retrieved} retrieved`,
      `  latency p50 ${m.latencyP50.toFixed(1)} ms, p95 ${m.latencyP95.toFixed(1)} ms; cost $${m.costPerQuery.toFixed(5)}/query, $${m.costPerMonth.toFixed(2)}/month at 100 prompts a day`,
      `  paths: ${Object.entries(m.paths)
        .map(([p, n]) => `${p} ${n}`)
        .join(", ")}`,
      "",
    ].join("\n"),
  );
  return 0;
}
