/**
 * `jury panel optimize <run-or-import>`: every sub-panel × N of a labelled run (or every panel of
 * label sets of an import), the cost–agreement frontier and the recommendation, from what is stored:
 * no new call.
 */
import type { Figure } from "../agreement/metrics";
import { JuryError } from "../errors";
import type { PanelConfig, PanelReport } from "../panel/engine";
import type { ImportPanelReport } from "../panel/import-panel";
import type { PanelOptimization } from "../panel/service";
import { type CommandSpec, flag, formatHelp, numberValue, parseCommand, text } from "./args";

export const PANEL_OPTIMIZE: CommandSpec = {
  name: "panel optimize",
  args: "<run-or-import>",
  summary:
    "Which judges, and how many samples each, agree with people as well as the full panel for less: every sub-panel of a labelled run's judges (up to 8) × every N from 1 to the run's, from the stored samples (no new call), against people's verdict labels. Prints the cost–agreement frontier and the cheapest configuration not worse than the full panel by more than the margin (a paired one-sided test over the same labelled verdicts), or how many more labels are needed to tell. For an import with several label sets: agreement with the gold labels by panel size.",
  options: {
    margin: {
      type: "string",
      arg: "<x>",
      help: "how much less accuracy than the full panel is acceptable, 0–0.5 (default 0.05)",
      parse: numberValue(0, 0.5),
      bad: "0.9",
    },
    criterion: text("<id>", "only this criterion of the run"),
    json: flag("print the whole report as JSON"),
  },
  positionals: { min: 1, max: 1 },
};

const PANEL_HELP = `Usage: jury panel <command>

Commands:
  optimize <run-or-import>  The cheapest panel and N that agree with people (jury panel optimize --help)
`;

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const ci = (f: Figure, fmt: (x: number) => string) =>
  f.value === null
    ? `— (n ${f.n})`
    : `${fmt(f.value)}${f.low !== null && f.high !== null ? ` [${fmt(f.low)}, ${fmt(f.high)}]` : ""} (n ${f.n})`;
const k2 = (x: number) => x.toFixed(2);
const usd = (x: number | null) => (x === null ? "unpriced" : `$${x.toFixed(6)}`);

function configRow(c: PanelConfig): string {
  return [
    c.id.padEnd(40),
    usd(c.costUsd).padStart(11),
    String(c.calls).padStart(5),
    ci(c.accuracy, pct).padEnd(34),
    ci(c.kappa, k2).padEnd(28),
    String(c.flips).padStart(5),
    (c.full ? "—" : pct(c.test.lower)).padStart(8),
  ].join("  ");
}

function criterionText(r: PanelReport): string {
  const lines = [
    `Criterion ${r.criterionId}: ${r.judges.length} judge${r.judges.length === 1 ? "" : "s"} × N=${r.n}, ${r.verdicts} verdicts, ${r.labelled} labelled by people; margin ${pct(r.margin)}`,
    `  full panel recomputed: ${r.fullCheck.equal} of ${r.fullCheck.verdicts} stored verdicts equal${r.fullCheck.differing.length ? ` (differ: ${r.fullCheck.differing.slice(0, 10).join(", ")})` : ""}`,
  ];
  if (r.unpriced.length)
    lines.push(
      `  no price for ${r.unpriced.join(", ")}: the frontier orders by calls per verdict, not dollars`,
    );
  lines.push(
    "",
    `  ${"configuration".padEnd(40)}  ${"cost/verdict".padStart(11)}  calls  ${"accuracy [95% CI] (n)".padEnd(34)}  ${"Cohen's κ [95% CI] (n)".padEnd(28)}  flips  vs full (lower bound)`,
  );
  const byId = new Map(r.configs.map((c) => [c.id, c]));
  for (const id of r.frontier) lines.push(`  ${configRow(byId.get(id) as PanelConfig)}  frontier`);
  if (!r.frontier.includes(r.full.id)) lines.push(`  ${configRow(r.full)}  full panel`);
  const rec = r.recommendation;
  lines.push(
    "",
    rec.status === "recommended"
      ? `  Recommended: ${rec.config}: ${rec.reason}`
      : `  Not enough labels: ${rec.reason}`,
    "",
  );
  return lines.join("\n");
}

function importText(r: ImportPanelReport): string {
  const lines = [
    `Import ${r.setId} (${r.name}): ${r.sets.length} label sets, ${r.goldItems} gold items; combined label: ${r.combine}`,
    ...(r.skippedSets.length ? [`  left out (more than 8 sets): ${r.skippedSets.join(", ")}`] : []),
    "",
    `  ${"size".padEnd(5)}  ${"panels".padStart(6)}  ${"mean κ".padStart(7)}  ${"best panel".padEnd(40)}  best κ [95% CI] (n)`,
  ];
  for (const s of r.bySize)
    lines.push(
      `  ${String(s.size).padEnd(5)}  ${String(s.panels).padStart(6)}  ${(s.meanKappa === null ? "—" : k2(s.meanKappa)).padStart(7)}  ${s.best.padEnd(40)}  ${ci(s.bestKappa, k2)}`,
    );
  const reach = r.panels.filter((p) => p.reachesAll && p.id !== r.all);
  lines.push(
    "",
    `  Within ${r.margin} of all sets' κ: ${reach.length ? reach.map((p) => p.id).join("; ") : "no smaller panel"}`,
    "",
  );
  return lines.join("\n");
}

export function panelText(r: PanelOptimization): string {
  if (r.kind === "import") return importText(r);
  return [
    `Run ${r.runId} (${r.suiteName})`,
    ...r.skipped.map((s) => `  ${s.criterionId}: not optimized: ${s.why}`),
    "",
    ...r.criteria.map(criterionText),
  ].join("\n");
}

export async function panelCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(PANEL_HELP);
    return 0;
  }
  if (sub !== "optimize")
    throw new JuryError("usage", `Unknown panel command "${sub}": use optimize (see jury panel --help)`);
  const { values, positionals, help } = parseCommand(PANEL_OPTIMIZE, rest);
  if (help) {
    process.stdout.write(formatHelp(PANEL_OPTIMIZE));
    return 0;
  }
  const { getDb } = await import("@/db/client");
  const { optimize } = await import("../panel/service");
  const report = await optimize(getDb(), positionals[0], {
    margin: values.margin as number | undefined,
    criterion: values.criterion as string | undefined,
  });
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : panelText(report));
  return 0;
}
