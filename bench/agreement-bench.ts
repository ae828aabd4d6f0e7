// Agreement at scale, on synthetic data generated here (seeded, so every run measures the same input):
//   (a) the report of 4,423 items × 33 label sets (gold + 32 judges, graded 0–3, cut 2): CPU of
//       computing every judge's figures with their 2,000-resample intervals;
//   (b) `import trec` of a 100,000-line gold file and a 100,000-line judge file: wall time and peak
//       RSS of a fresh process that reads, validates, stores and reports them (as the CLI's job does);
//   (c) `import jsonl` of a 150,000-line file (5,000 items × 30 judges): wall time and peak RSS.
// Each figure is printed beside its target (issue: ≤ 5 s CPU; ≤ 10 s and ≤ 300 MB; ≤ 10 s).
//
//   node scripts/build-cli.mjs && node dist/agreement-bench.mjs [--json]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createDb } from "@/db/client";
import type { AgreementItemRow, AgreementSetRow } from "@/db/queries/agreement";
import { importSpecSchema } from "@/lib/agreement/job-spec";
import { newSetId, runImportJob } from "@/lib/agreement/jobs";
import { setReport } from "@/lib/agreement/report";
import { mulberry32 } from "@/lib/stats/bootstrap";

const TARGET = { reportCpuS: 5, trecWallS: 10, trecRssMb: 300, jsonlWallS: 10 };

/** A judge's grade: right with probability `skill`, else one grade off (or a random grade). */
function judgeGrade(gold: number, skill: number, rng: () => number): number {
  const r = rng();
  if (r < skill) return gold;
  if (r < skill + (1 - skill) * 0.7) return Math.max(0, Math.min(3, gold + (rng() < 0.5 ? -1 : 1)));
  return Math.floor(rng() * 4);
}

function reportBench() {
  const rng = mulberry32(4423);
  const n = 4423;
  const items: AgreementItemRow[] = Array.from({ length: n }, (_, i) => ({
    itemId: `q${Math.floor(i / 50)} d${i}`,
    position: i,
    gold: Math.floor(rng() * 4),
    data: null,
  }));
  const judgments: { itemId: string; judge: string; label: number }[] = [];
  for (let j = 0; j < 32; j++) {
    const skill = 0.35 + (j / 32) * 0.5;
    for (const it of items)
      if (rng() > 0.02)
        judgments.push({
          itemId: it.itemId,
          judge: `judge-${j}`,
          label: judgeGrade(it.gold as number, skill, rng),
        });
  }
  const set: AgreementSetRow = {
    id: "bench",
    kind: "trec",
    name: "bench",
    options: { kind: "graded", scale: [0, 3], cut: 2 },
    createdAt: new Date(),
  };
  const start = process.cpuUsage();
  const t0 = performance.now();
  const r = setReport(set, items, judgments);
  const cpu = process.cpuUsage(start);
  return {
    items: n,
    labelSets: 33,
    judgments: judgments.length,
    cpuS: (cpu.user + cpu.system) / 1e6,
    wallS: (performance.now() - t0) / 1000,
    check: r.judges.length,
  };
}

function writeQrels(file: string, lines: number, seed: number, gold?: string) {
  const rng = mulberry32(seed);
  const out: string[] = [];
  const goldLines = gold?.split("\n");
  for (let i = 0; i < lines; i++) {
    const g = goldLines ? Number(goldLines[i].split(" ")[3]) : Math.floor(rng() * 4);
    const label = goldLines ? judgeGrade(g, 0.6, rng) : g;
    out.push(`q${Math.floor(i / 100)} 0 d${i} ${label}`);
  }
  const text = `${out.join("\n")}\n`;
  fs.writeFileSync(file, text);
  return text;
}

function writeJsonl(file: string, items: number, judges: number) {
  const rng = mulberry32(150);
  const out: string[] = [];
  for (let i = 0; i < items; i++) {
    const gold = Math.floor(rng() * 4);
    for (let j = 0; j < judges; j++)
      out.push(`{"item_id":"i${i}","judge":"j${j}","score":${judgeGrade(gold, 0.6, rng)},"gold":${gold}}`);
  }
  fs.writeFileSync(file, `${out.join("\n")}\n`);
  return out.length;
}

/** The child: one import as the CLI's job runs it, in a fresh process; prints its figures. */
async function child(kind: string, dir: string) {
  const db = createDb(path.join(dir, `${kind}.db`));
  const spec = importSpecSchema.parse(
    kind === "trec"
      ? {
          setId: newSetId("trec"),
          format: "trec",
          gold: { name: "gold.qrels", path: path.join(dir, "gold.qrels") },
          judges: [{ name: "judge.qrels", path: path.join(dir, "judge.qrels") }],
          options: {},
        }
      : {
          setId: newSetId("jsonl"),
          format: "jsonl",
          gold: null,
          judges: [{ name: "big.jsonl", path: path.join(dir, "big.jsonl") }],
          options: {},
        },
  );
  const t0 = performance.now();
  const r = await runImportJob(db, spec);
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage();
  process.stdout.write(
    JSON.stringify({
      wallS,
      cpuS: (cpu.user + cpu.system) / 1e6,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      judges: r.report.judges.length,
      items: r.report.items,
    }),
  );
}

function runChild(kind: string, dir: string) {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [self, `--child=${kind}`, `--dir=${dir}`], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (r.status !== 0) throw new Error(`${kind} import failed (exit ${r.status})`);
  return JSON.parse(r.stdout) as {
    wallS: number;
    cpuS: number;
    maxRssMb: number;
    judges: number;
    items: number;
  };
}

async function main() {
  const args = process.argv.slice(2);
  const childArg = args.find((a) => a.startsWith("--child="));
  if (childArg) {
    const dir = (args.find((a) => a.startsWith("--dir=")) as string).slice(6);
    return child(childArg.slice(8), dir);
  }
  const json = args.includes("--json");
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "jury-agreement-bench-"));
  try {
    log("agreement: report of 4,423 items × 33 label sets…");
    const report = reportBench();
    log("agreement: import trec of a 100,000-line qrels pair…");
    const goldText = writeQrels(path.join(dir, "gold.qrels"), 100_000, 1);
    writeQrels(path.join(dir, "judge.qrels"), 100_000, 2, goldText);
    const trecBytes =
      fs.statSync(path.join(dir, "gold.qrels")).size + fs.statSync(path.join(dir, "judge.qrels")).size;
    const trec = runChild("trec", dir);
    log("agreement: import jsonl of a 150,000-line file…");
    const lines = writeJsonl(path.join(dir, "big.jsonl"), 5000, 30);
    const jsonlBytes = fs.statSync(path.join(dir, "big.jsonl")).size;
    const jsonl = runChild("jsonl", dir);
    const figures = {
      load: os.loadavg().map((x) => Number(x.toFixed(2))),
      cpus: os.cpus().length,
      report: { ...report, targetCpuS: TARGET.reportCpuS },
      trec: {
        lines: 200_000,
        bytes: trecBytes,
        ...trec,
        targetWallS: TARGET.trecWallS,
        targetRssMb: TARGET.trecRssMb,
      },
      jsonl: { lines, bytes: jsonlBytes, ...jsonl, targetWallS: TARGET.jsonlWallS },
    };
    if (json) {
      process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
      return;
    }
    const row = (what: string, got: string, target: string, ok: boolean) =>
      `  ${what.padEnd(52)} ${got.padStart(12)}   target ${target.padEnd(10)} ${ok ? "ok" : "OVER"}`;
    process.stdout.write(
      [
        `Agreement at scale (load ${figures.load.join(", ")} on ${figures.cpus} CPUs)`,
        row(
          `report, ${report.items} items × 33 label sets: CPU`,
          `${report.cpuS.toFixed(2)} s`,
          `≤ ${TARGET.reportCpuS} s`,
          report.cpuS <= TARGET.reportCpuS,
        ),
        row(`  (wall)`, `${report.wallS.toFixed(2)} s`, "", true),
        row(
          `import trec, 2 × 100,000 lines (${(trecBytes / 1e6).toFixed(1)} MB): wall`,
          `${trec.wallS.toFixed(2)} s`,
          `≤ ${TARGET.trecWallS} s`,
          trec.wallS <= TARGET.trecWallS,
        ),
        row(`  (CPU)`, `${trec.cpuS.toFixed(2)} s`, "", true),
        row(
          `  peak RSS`,
          `${trec.maxRssMb.toFixed(0)} MB`,
          `≤ ${TARGET.trecRssMb} MB`,
          trec.maxRssMb <= TARGET.trecRssMb,
        ),
        row(
          `import jsonl, ${lines.toLocaleString("en-US")} lines (${(jsonlBytes / 1e6).toFixed(1)} MB): wall`,
          `${jsonl.wallS.toFixed(2)} s`,
          `≤ ${TARGET.jsonlWallS} s`,
          jsonl.wallS <= TARGET.jsonlWallS,
        ),
        row(`  (CPU)`, `${jsonl.cpuS.toFixed(2)} s`, "", true),
        row(`  peak RSS`, `${jsonl.maxRssMb.toFixed(0)} MB`, "", true),
        "",
      ].join("\n"),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`agreement bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
