// Memory retrieval benchmark (issue 15). Run with `npm run bench` (bundled to dist/memory-bench.mjs).
//
// 1. Quality before → after on the example study and examples/beir-synthetic (retrieval-quality.ts).
// 2. Speed: BM25 candidates (pool 15) over 10,000 and 100,000 generated memories (and 1,000,000 with
//    --million), 280 timed queries per mode after 20 warm-up ones; each query runs retrieveCandidates,
//    the same unpruned (exact), and the old query (legacy-retrieval.ts) back to back, in turn first
//    and last, so all see the same load. p50/p95, where the new pipeline spends its time (per phase), which
//    path each query took, how much of the exact and of the old top 15 the shipped one keeps. At 100,000: where the old query's time went, step by
//    step (each step one more part of the query, medians over the same queries).
// 3. The hook as Claude Code runs it (a fresh `jury memory retrieve` process per prompt, judge off)
//    at 10,000 and 100,000 memories against a bare `node -e 0`, medians of 21 runs each.
// Targets: at 100,000 memories search p95 ≤ 10 ms, auto p95 ≤ 5 ms, hook ≤ 1.3 × node -e 0.
//
// Options: --json (every figure as JSON), --million (adds 1,000,000 memories: minutes, about 1.5 GB
// of disk; not for CI), --profile <file.cpuprofile> (a CPU profile of the 100,000 search-mode loop;
// prints the heaviest functions by self time).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { createDb, type SqliteDb } from "@/db/client";
import { type MemoryInput, upsertMemories } from "@/db/queries/memories";
import { type RetrievalMode, type RetrievalTrace, retrieveCandidates } from "@/lib/memory/candidates";
import { mulberry32 } from "@/lib/stats/bootstrap";
import { LEGACY_SQL, legacyCandidates, legacyMatch } from "./legacy-retrieval";
import { printQuality, type QualityRow, retrievalQuality } from "./retrieval-quality";

const args = process.argv.slice(2);
const json = args.includes("--json");
const million = args.includes("--million");
const profileAt = args.indexOf("--profile");
const profileFile = profileAt >= 0 ? args[profileAt + 1] : undefined;
const progress = (s: string) => process.stderr.write(`${s}\n`);

// --- the bench's set: the same generator, seed and draw order as before issue 15 ---------------
const rand = mulberry32(42);
const syllables = [
  "ka",
  "lo",
  "mi",
  "ne",
  "ru",
  "ta",
  "po",
  "shi",
  "ven",
  "dor",
  "qua",
  "zel",
  "bri",
  "fo",
  "gan",
  "hu",
];
const word = () =>
  Array.from(
    { length: 2 + Math.floor(rand() * 3) },
    () => syllables[Math.floor(rand() * syllables.length)],
  ).join("");
const vocab = Array.from({ length: 5000 }, word);
const pick = () => vocab[Math.floor(rand() ** 1.5 * vocab.length)]; // skewed, like real text
const phrase = (n: number) => Array.from({ length: n }, pick).join(" ");
const categories = ["decision", "constraint", "procedure", "bug", "preference"];

/** Generates and inserts n memories 5,000 at a time (the draws are those of one big array). */
function insertMemories(db: SqliteDb, n: number): number {
  const t0 = performance.now();
  for (let i = 0; i < n; i += 5000) {
    const chunk: MemoryInput[] = [];
    for (let j = i; j < Math.min(n, i + 5000); j++)
      chunk.push({
        memoryId: `m${j}`,
        category: categories[j % categories.length],
        title: phrase(6),
        tags: Array.from({ length: 3 }, pick),
        body: phrase(60),
      });
    upsertMemories(db, "default", chunk);
  }
  return performance.now() - t0;
}
const promptsFor = () => Array.from({ length: 300 }, (_, q) => `please ${phrase(3 + (q % 5))} now`);

// --- figures -------------------------------------------------------------------------------------
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
};
const median = (xs: number[]) => pct(xs, 0.5);
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const WARM = 20;

/** Wall time, and this process's CPU time (user + system: what the query itself cost, whatever else runs). */
type Timing = { p50_ms: number; p95_ms: number; cpu_p50_ms: number; cpu_p95_ms: number; queries: number };
type Clocked = { wall: number[]; cpu: number[] };
const clocked = (): Clocked => ({ wall: [], cpu: [] });
function clock<T>(into: Clocked | undefined, run: () => T): T {
  const c = process.cpuUsage();
  const s = performance.now();
  const value = run();
  const wall = performance.now() - s;
  const u = process.cpuUsage(c);
  if (into) {
    into.wall.push(wall);
    into.cpu.push((u.user + u.system) / 1000);
  }
  return value;
}
const timing = (t: Clocked): Timing => ({
  p50_ms: round(median(t.wall)),
  p95_ms: round(pct(t.wall, 0.95)),
  cpu_p50_ms: round(median(t.cpu)),
  cpu_p95_ms: round(pct(t.cpu, 0.95)),
  queries: t.wall.length,
});

type ModeFigures = {
  after: Timing;
  /** the same pipeline ranking every match (pruneBudget Infinity) */
  exact: Timing;
  before?: Timing;
  /** median before ÷ median after */
  speedup?: number;
  /** median milliseconds per phase of the new pipeline (0 where a query skipped the phase) */
  phases_ms: Record<string, number>;
  /** how many queries took each prefix path, and how many were pruned */
  paths: Record<string, number>;
  /** share of the exact top 15 (no pruning) that the shipped top 15 keeps, mean over queries */
  kept_of_exact_top15?: number;
  /** share of the old top 15 that the new top 15 keeps (mean over queries) */
  kept_of_old_top15?: number;
};

const overlap = (mine: { memoryId: string }[], other: { memoryId: string }[]) => {
  if (other.length === 0) return undefined;
  const ids = new Set(mine.map((c) => c.memoryId));
  return other.filter((o) => ids.has(o.memoryId)).length / other.length;
};
const meanOf = (xs: (number | undefined)[]) => {
  const ys = xs.filter((x): x is number => x !== undefined);
  return ys.length ? round(ys.reduce((a, b) => a + b, 0) / ys.length, 3) : undefined;
};

/** Each query runs the shipped retrieval, then (search mode) the exact one, then the old query. */
function measureMode(db: SqliteDb, mode: RetrievalMode, prompts: string[], withBefore: boolean): ModeFigures {
  const after = clocked();
  const exact = clocked();
  const before = clocked();
  const traces: RetrievalTrace[] = [];
  const keptExact: (number | undefined)[] = [];
  const keptOld: (number | undefined)[] = [];
  for (const [q, prompt] of prompts.entries()) {
    const timed = q >= WARM; // the first 20 warm the caches
    const trace: RetrievalTrace = { ms: {} };
    const base = { collection: "default", prompt, mode, poolSize: 15 };
    // the three run back to back, in turn first and last (the old query reads much more of the file)
    const runMine = () =>
      clock(timed ? after : undefined, () => retrieveCandidates(db, { ...base, trace }).candidates);
    const runExact = () =>
      clock(
        timed ? exact : undefined,
        () => retrieveCandidates(db, { ...base, pruneBudget: Number.POSITIVE_INFINITY }).candidates,
      );
    const runOld = () =>
      withBefore ? clock(timed ? before : undefined, () => legacyCandidates(db, base)) : [];
    let mine: { memoryId: string }[];
    let full: { memoryId: string }[];
    let old: { memoryId: string }[];
    if (q % 2 === 0) {
      mine = runMine();
      full = runExact();
      old = runOld();
    } else {
      old = runOld();
      full = runExact();
      mine = runMine();
    }
    if (timed) traces.push(trace);
    if (timed) keptExact.push(overlap(mine, full));
    if (withBefore && timed) keptOld.push(overlap(mine, old));
  }
  const phases = new Set(traces.flatMap((t) => Object.keys(t.ms)));
  const paths: Record<string, number> = {};
  for (const t of traces) {
    paths[`prefix ${t.prefix ?? "?"}`] = (paths[`prefix ${t.prefix ?? "?"}`] ?? 0) + 1;
    if (t.pruned !== undefined) paths.pruned = (paths.pruned ?? 0) + 1;
  }
  return {
    after: timing(after),
    exact: timing(exact),
    kept_of_exact_top15: meanOf(keptExact),
    ...(withBefore
      ? {
          before: timing(before),
          speedup: round(median(before.wall) / median(after.wall), 1),
          kept_of_old_top15: meanOf(keptOld),
        }
      : {}),
    phases_ms: Object.fromEntries(
      [...phases].map((p) => [p, round(median(traces.map((t) => t.ms[p] ?? 0)), 3)]),
    ),
    paths,
  };
}

/** Where the old query's time went: each step adds one part of it; medians over the same queries. */
function oldQuerySteps(
  db: SqliteDb,
  mode: RetrievalMode,
  prompts: string[],
): { step: string; median_ms: number }[] {
  const c = db.$client;
  const steps: [string, (p: string) => unknown][] = [
    ["query building (tokens, MATCH expression)", (p) => legacyMatch(p, mode)],
    [
      "MATCH over the OR terms, exact terms only (count)",
      (p) =>
        c
          .prepare("select count(*) from memories_fts where memories_fts match ?")
          .get(legacyMatch(p, mode, { prefix: false })),
    ],
    [
      "+ prefix expansion (count)",
      (p) =>
        c.prepare("select count(*) from memories_fts where memories_fts match ?").get(legacyMatch(p, mode)),
    ],
    [
      "+ bm25() over every match",
      (p) =>
        c
          .prepare(
            "select sum(s) from (select bm25(memories_fts, 3, 2, 1) as s from memories_fts where memories_fts match ? limit -1)",
          )
          .get(legacyMatch(p, mode)),
    ],
    [
      "+ ordering (top 15)",
      (p) =>
        c
          .prepare(
            "select rowid, -bm25(memories_fts, 3, 2, 1) as s from memories_fts where memories_fts match ? order by s desc limit 15",
          )
          .all(legacyMatch(p, mode)),
    ],
    [
      "+ join to memories for the collection",
      (p) =>
        c
          .prepare(
            `select m.rowid, -bm25(memories_fts, 3, 2, 1) as s from memories_fts join memories m on m.rowid = memories_fts.rowid
             where memories_fts match ? and m.collection = 'default' order by s desc limit 15`,
          )
          .all(legacyMatch(p, mode)),
    ],
    [
      "+ every row's text through the sort (the old query)",
      (p) => c.prepare(LEGACY_SQL).all(3, 2, 1, legacyMatch(p, mode), "default", 15),
    ],
  ];
  const times = steps.map(() => [] as number[]);
  for (const [q, prompt] of prompts.slice(0, 110).entries())
    for (const [i, [, run]] of steps.entries()) {
      const s = performance.now();
      run(prompt);
      if (q >= 10) times[i].push(performance.now() - s);
    }
  return steps.map(([step], i) => ({ step, median_ms: round(median(times[i]), 3) }));
}

/** Bytes per part of the file (SQLite's dbstat), after a checkpoint. */
function sizes(db: SqliteDb, file: string) {
  db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const rows = db.$client.prepare("select name, sum(pgsize) as bytes from dbstat group by name").all() as {
    name: string;
    bytes: number;
  }[];
  const sum = (re: RegExp) => rows.filter((r) => re.test(r.name)).reduce((s, r) => s + r.bytes, 0);
  return {
    file_bytes: fs.statSync(file).size,
    full_index_bytes: sum(/^memories_fts/),
    head_index_bytes: sum(/^memories_head/),
    memories_bytes: sum(/^memories($|_collection)|^sqlite_autoindex_memories/),
  };
}

async function profiled<T>(file: string | undefined, run: () => T): Promise<{ value: T; top?: string[] }> {
  if (!file) return { value: run() };
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  const value = run();
  const { profile } = await session.post("Profiler.stop");
  session.disconnect();
  fs.writeFileSync(file, JSON.stringify(profile));
  // self time per function: samples × their time deltas
  const self = new Map<number, number>();
  profile.samples?.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0));
  });
  const byName = new Map<string, number>();
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const name =
      `${f.functionName || "(anonymous)"} ${f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : ""}`.trim();
    byName.set(name, (byName.get(name) ?? 0) + (self.get(n.id) ?? 0));
  }
  const total = [...byName.values()].reduce((a, b) => a + b, 0) || 1;
  const top = [...byName.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([name, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${name}`);
  return { value, top };
}

// --- run ------------------------------------------------------------------------------------------
const results: Record<string, unknown> = {};
const loadAtStart = os.loadavg()[0];
progress("memory bench: quality on the example study and beir-synthetic…");
const quality: QualityRow[] = await retrievalQuality();
results.quality = quality;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-membench-"));
const sizesList = [10_000, 100_000, ...(million ? [1_000_000] : [])];
const retrieval: Record<string, unknown> = {};
const files: Record<number, string> = {};
let hookPrompt = "";
let profileTop: string[] | undefined;
let steps: Record<string, { step: string; median_ms: number }[]> | undefined;
try {
  for (const n of sizesList) {
    progress(`memory bench: ${n.toLocaleString("en-US")} memories…`);
    const file = path.join(dir, `m${n}.db`);
    files[n] = file;
    const db = createDb(file);
    const insertMs = insertMemories(db, n);
    const prompts = { auto: promptsFor(), search: promptsFor() };
    // the hook's prompt is drawn here, as before; 1,000,000 memories are drawn after it, so the
    // 10,000 and 100,000 sets stay what they were
    if (n === 100_000) hookPrompt = `fix the ${phrase(4)} problem`;
    const withBefore = n <= 100_000;
    const byMode: Record<string, ModeFigures> = {};
    byMode.auto = measureMode(db, "auto", prompts.auto, withBefore);
    if (n === 100_000 && profileFile) {
      const p = await profiled(profileFile, () => measureMode(db, "search", prompts.search, withBefore));
      byMode.search = p.value;
      profileTop = p.top;
    } else byMode.search = measureMode(db, "search", prompts.search, withBefore);
    if (n === 100_000) {
      progress("memory bench: where the old query's time went…");
      steps = {
        auto: oldQuerySteps(db, "auto", prompts.auto),
        search: oldQuerySteps(db, "search", prompts.search),
      };
    }
    retrieval[n] = { insert_ms: Math.round(insertMs), ...sizes(db, file), ...byMode };
    db.$client.close();
    if (n > 100_000) fs.rmSync(file, { force: true });
  }
  results.retrieval = retrieval;
  if (steps) results.old_query_steps_100000 = steps;

  // the hook as Claude Code runs it: a fresh process per prompt
  const input = JSON.stringify({
    prompt: hookPrompt,
    session_id: "s",
    cwd: dir,
    hook_event_name: "UserPromptSubmit",
  });
  const bin = path.resolve("bin/jury.cjs");
  const hook: Record<string, unknown> = {};
  for (const n of [10_000, 100_000]) {
    progress(`memory bench: hook at ${n.toLocaleString("en-US")} memories…`);
    const run = (argv: string[], stdin?: string) => {
      const s = performance.now();
      const r = spawnSync(process.execPath, argv, {
        input: stdin,
        env: { ...process.env, JURY_DB: files[n], JURY_HOOK_LOG: path.join(dir, "hook.log") },
      });
      if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}: ${r.stderr}`);
      return performance.now() - s;
    };
    const h: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < 22; i++) {
      const a = run([bin, "memory", "retrieve"], input);
      const b = run(["-e", "0"]);
      if (i > 0) {
        h.push(a);
        bare.push(b);
      }
    }
    hook[n] = {
      median_ms: round(median(h), 1),
      node_e0_median_ms: round(median(bare), 1),
      ratio: round(median(h) / median(bare)),
      runs: h.length,
    };
  }
  results.hook = hook;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

type Mode = ModeFigures;
const at = (n: number) =>
  retrieval[n] as Record<string, Mode> & { insert_ms: number } & ReturnType<typeof sizes>;
const h100 = (results.hook as Record<number, { ratio: number }>)[100_000];
const targets = [
  {
    figure: "search p95 at 100,000 memories (ms)",
    value: at(100_000).search.after.p95_ms,
    cpu: at(100_000).search.after.cpu_p95_ms,
    target: 10,
  },
  {
    figure: "auto p95 at 100,000 memories (ms)",
    value: at(100_000).auto.after.p95_ms,
    cpu: at(100_000).auto.after.cpu_p95_ms,
    target: 5,
  },
  { figure: "hook ÷ node -e 0 at 100,000 memories", value: h100.ratio, cpu: undefined, target: 1.3 },
].map((t) => ({ ...t, pass: t.value <= t.target }));
results.targets = targets;
results.machine = {
  cpus: os.cpus().length,
  node: process.version,
  load_average_start: round(loadAtStart),
  load_average_end: round(os.loadavg()[0]),
};
if (profileTop) results.cpu_profile = { file: profileFile, top_self_time: profileTop };

if (json) console.log(JSON.stringify(results, null, 2));
else {
  printQuality(quality);
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  console.log(
    "\nMemory retrieval (FTS5 BM25, pool 15; 280 timed queries per mode; before = the old query, same queries, back to back)",
  );
  for (const n of sizesList) {
    const r = at(n);
    console.log(
      `  ${n.toLocaleString("en-US")} memories: file ${mb(r.file_bytes)} (full index ${mb(r.full_index_bytes)}, head index ${mb(r.head_index_bytes)}, memories ${mb(r.memories_bytes)}), inserted in ${(r.insert_ms / 1000).toFixed(1)} s`,
    );
    for (const mode of ["auto", "search"] as const) {
      const m = r[mode];
      const t = (x: Timing) =>
        `p50 ${x.p50_ms.toFixed(2)} ms  p95 ${x.p95_ms.toFixed(2)} ms (CPU ${x.cpu_p50_ms.toFixed(2)} / ${x.cpu_p95_ms.toFixed(2)})`;
      console.log(`    ${mode.padEnd(6)} ${t(m.after)}`);
      console.log(
        `           exact (no pruning): ${t(m.exact)}; the shipped top 15 keeps ${(100 * (m.kept_of_exact_top15 ?? 0)).toFixed(1)} % of the exact top 15`,
      );
      if (m.before)
        console.log(
          `           before: ${t(m.before)} (median ${m.speedup}× the new); the new top 15 keeps ${(100 * (m.kept_of_old_top15 ?? 0)).toFixed(1)} % of the old`,
        );
      console.log(
        `           phases (median ms): ${Object.entries(m.phases_ms)
          .map(([k, v]) => `${k} ${v}`)
          .join(" · ")}; ${Object.entries(m.paths)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}`,
      );
    }
  }
  if (steps) {
    console.log(
      "\nWhere the old query's time went at 100,000 memories (each step adds one part; medians over 100 queries)",
    );
    for (const mode of ["auto", "search"] as const) {
      console.log(`  ${mode}`);
      let prev = 0;
      for (const s of steps[mode]) {
        console.log(
          `    ${s.step.padEnd(54)} ${s.median_ms.toFixed(2).padStart(8)} ms  (${s.median_ms - prev >= 0 ? "+" : "−"}${Math.abs(s.median_ms - prev).toFixed(2)})`,
        );
        if (!s.step.startsWith("query building")) prev = s.median_ms;
      }
    }
  }
  if (profileTop) {
    console.log(`\nCPU profile of the 100,000 search-mode loop (${profileFile}), self time:`);
    for (const line of profileTop) console.log(`  ${line}`);
  }
  const hk = results.hook as Record<
    number,
    { median_ms: number; node_e0_median_ms: number; ratio: number; runs: number }
  >;
  console.log("\nHook process (judge off), medians of 21 runs, interleaved with node -e 0:");
  for (const n of [10_000, 100_000])
    console.log(
      `  ${n.toLocaleString("en-US").padStart(7)} memories: jury memory retrieve ${hk[n].median_ms.toFixed(1)} ms · node -e 0 ${hk[n].node_e0_median_ms.toFixed(1)} ms · ratio ${hk[n].ratio.toFixed(2)}`,
    );
  console.log(
    `\nTargets (issue 15; wall time, CPU time for comparison; load average ${os.loadavg()[0].toFixed(1)}):`,
  );
  for (const t of targets)
    console.log(
      `  ${t.figure.padEnd(40)} ${String(t.value).padStart(7)}${t.cpu === undefined ? "" : ` (CPU ${t.cpu})`}  target ≤ ${t.target}  ${t.pass ? "PASS" : "MISS"}`,
    );
}
