// Memory retrieval benchmark: FTS5 candidate retrieval p50/p95 over 10,000 and 100,000 generated
// memories, and the whole `jury memory retrieve` hook process (judge off, 10,000 memories) against
// a bare `node -e 0`, medians of 21 runs each. Run with `npm run bench` (bundled to dist/).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb } from "@/db/client";
import { type MemoryInput, upsertMemories } from "@/db/queries/memories";
import { retrieveCandidates } from "@/lib/memory/candidates";
import { mulberry32 } from "@/lib/stats/bootstrap";

const json = process.argv.includes("--json");
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

function memoriesFor(n: number): MemoryInput[] {
  return Array.from({ length: n }, (_, i) => ({
    memoryId: `m${i}`,
    category: categories[i % categories.length],
    title: phrase(6),
    tags: Array.from({ length: 3 }, pick),
    body: phrase(60),
  }));
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
};
const median = (xs: number[]) => pct(xs, 0.5);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-membench-"));
const results: Record<string, unknown> = {};
for (const n of [10_000, 100_000]) {
  const file = path.join(dir, `m${n}.db`);
  const db = createDb(file);
  const t0 = performance.now();
  const all = memoriesFor(n);
  for (let i = 0; i < all.length; i += 5000) upsertMemories(db, "default", all.slice(i, i + 5000));
  const insertMs = performance.now() - t0;
  for (const mode of ["auto", "search"] as const) {
    const times: number[] = [];
    for (let q = 0; q < 300; q++) {
      const prompt = `please ${phrase(3 + (q % 5))} now`;
      const s = performance.now();
      retrieveCandidates(db, { collection: "default", prompt, mode, poolSize: 15 });
      if (q >= 20) times.push(performance.now() - s); // first 20 warm the cache
    }
    results[`fts5_${mode}_${n}`] = { p50_ms: median(times), p95_ms: pct(times, 0.95), queries: times.length };
  }
  results[`insert_${n}`] = { ms: insertMs };
  db.$client.close();
}

// the hook as Claude Code runs it: a fresh process per prompt
const hookDb = path.join(dir, "m10000.db");
const input = JSON.stringify({
  prompt: `fix the ${phrase(4)} problem`,
  session_id: "s",
  cwd: dir,
  hook_event_name: "UserPromptSubmit",
});
const bin = path.resolve("bin/jury.cjs");
const run = (args: string[], stdin?: string) => {
  const s = performance.now();
  const r = spawnSync(process.execPath, args, {
    input: stdin,
    env: { ...process.env, JURY_DB: hookDb, JURY_HOOK_LOG: path.join(dir, "hook.log") },
  });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return performance.now() - s;
};
const hook: number[] = [];
const bare: number[] = [];
for (let i = 0; i < 22; i++) {
  const h = run([bin, "memory", "retrieve"], input);
  const b = run(["-e", "0"]);
  if (i > 0) {
    hook.push(h);
    bare.push(b);
  }
}
const ratio = median(hook) / median(bare);
results.hook_10000 = {
  median_ms: median(hook),
  node_e0_median_ms: median(bare),
  ratio,
  runs: hook.length,
  target: "≤ 1.3",
};
fs.rmSync(dir, { recursive: true, force: true });

if (json) console.log(JSON.stringify(results, null, 2));
else {
  console.log("Memory retrieval (FTS5 BM25, pool 15, 280 timed queries each)");
  for (const n of [10_000, 100_000]) {
    for (const mode of ["auto", "search"]) {
      const r = results[`fts5_${mode}_${n}`] as { p50_ms: number; p95_ms: number };
      console.log(
        `  ${String(n).padStart(7)} memories, ${mode.padEnd(6)} p50 ${r.p50_ms.toFixed(2)} ms  p95 ${r.p95_ms.toFixed(2)} ms`,
      );
    }
  }
  console.log(`Hook process (judge off, 10,000 memories), medians of ${hook.length} runs:`);
  console.log(
    `  jury memory retrieve ${median(hook).toFixed(1)} ms · node -e 0 ${median(bare).toFixed(1)} ms · ratio ${ratio.toFixed(2)} (target ≤ 1.3: ${ratio <= 1.3 ? "PASS" : "MISS"})`,
  );
}
