import { createHash } from "node:crypto";
import type { Run, RunCase } from "@/db/schema";
import { DEFAULT_PANEL_OPTIONS } from "../judging/aggregate";

/**
 * What two runs were asked to do, side by side: the suite (name, folder, a hash of its cases as the
 * run snapshotted them), the panel (judges, N, temperature, cache, panel options) and per criterion
 * its version, a hash of what its judges are sent (system prompt, template, schema) and thresholds.
 * A difference here explains the deltas and flips below it on the compare page.
 */

export type ConfigRow = {
  /** stable key, for tests and React */
  key: string;
  group: "suite" | "panel" | "criterion";
  label: string;
  a: string;
  b: string;
  differs: boolean;
  /** what the difference means, where it is not plain */
  hint?: string;
};

type RunSide = {
  run: Pick<Run, "suiteName" | "suitePath" | "options">;
  cases: Pick<RunCase, "caseId" | "name" | "input" | "output" | "criteria">[];
};

const NOT_RECORDED = "not recorded";

/** A hash of the cases a run judged (ids, names, inputs, outputs), from its own snapshot. */
export function casesHash(cases: RunSide["cases"]): string {
  const rows = [...cases]
    .sort((x, y) => x.caseId.localeCompare(y.caseId))
    .map((c) => [c.caseId, c.name, c.input, c.output]);
  return createHash("sha256").update(JSON.stringify(rows)).digest("hex").slice(0, 12);
}

function criterionFacts(cases: RunSide["cases"], id: string) {
  const refs = cases.flatMap((c) => c.criteria.filter((x) => x.id === id));
  if (refs.length === 0) return undefined;
  const thresholds = [...new Set(refs.map((r) => r.threshold))].sort((x, y) => x - y);
  const version = refs.find((r) => r.version)?.version;
  const hash = refs.find((r) => r.definitionHash)?.definitionHash;
  return {
    type: refs[0].type,
    version: version ?? NOT_RECORDED,
    hash: hash ?? NOT_RECORDED,
    thresholds:
      thresholds.length === 1 ? String(thresholds[0]) : `${thresholds[0]}–${thresholds.at(-1)} (per case)`,
    cases: refs.length,
  };
}

const row = (
  group: ConfigRow["group"],
  key: string,
  label: string,
  a: string,
  b: string,
  hint?: string,
): ConfigRow => ({ key, group, label, a, b, differs: a !== b, ...(hint && a !== b ? { hint } : {}) });

/** The two configurations, row by row; `differs` marks what changed between A and B. */
export function compareConfigs(a: RunSide, b: RunSide): ConfigRow[] {
  const oa = a.run.options;
  const ob = b.run.options;
  const panel = (o: typeof oa) => ({ ...DEFAULT_PANEL_OPTIONS, ...o.panel });
  const pa = panel(oa);
  const pb = panel(ob);
  const judges = (o: typeof oa) => [...o.judges].sort().join(", ");
  const rows: ConfigRow[] = [
    row("suite", "suite.name", "suite", a.run.suiteName, b.run.suiteName),
    row("suite", "suite.path", "suite folder", a.run.suitePath, b.run.suitePath),
    row(
      "suite",
      "suite.cases",
      "cases (count · hash)",
      `${a.cases.length} · ${casesHash(a.cases)}`,
      `${b.cases.length} · ${casesHash(b.cases)}`,
      "the cases differ: an input, an output or a case itself changed, so a delta may be the output's, not the judges'",
    ),
    row("panel", "panel.judges", "judges", judges(oa), judges(ob)),
    row("panel", "panel.n", "N samples per judge", String(oa.n), String(ob.n)),
    row("panel", "panel.temperature", "temperature", String(oa.temperature), String(ob.temperature)),
    row(
      "panel",
      "panel.cache",
      "response cache",
      oa.noCache ? "skipped" : "used",
      ob.noCache ? "skipped" : "used",
      "one run may have reused stored answers: its samples are not new draws",
    ),
    row(
      "panel",
      "panel.consensus",
      "consensus threshold (std, 1–10 scale)",
      String(pa.consensus_threshold),
      String(pb.consensus_threshold),
    ),
    row(
      "panel",
      "panel.flags",
      "flag low consensus · report uncertainty",
      `${pa.flag_low_consensus ? "yes" : "no"} · ${pa.report_uncertainty ? "yes" : "no"}`,
      `${pb.flag_low_consensus ? "yes" : "no"} · ${pb.report_uncertainty ? "yes" : "no"}`,
    ),
  ];
  const ids = [...new Set([...a.cases, ...b.cases].flatMap((c) => c.criteria.map((x) => x.id)))].sort();
  for (const id of ids) {
    const fa = criterionFacts(a.cases, id);
    const fb = criterionFacts(b.cases, id);
    const show = (f: ReturnType<typeof criterionFacts>, k: "version" | "hash" | "thresholds") =>
      f ? f[k] : "not in this run";
    rows.push(
      row("criterion", `${id}.version`, `${id}: version`, show(fa, "version"), show(fb, "version")),
      row(
        "criterion",
        `${id}.hash`,
        `${id}: ${(fa ?? fb)?.type === "deterministic" ? "function (hash)" : "prompt and schema (hash)"}`,
        show(fa, "hash"),
        show(fb, "hash"),
        "the judges were sent a different prompt (system prompt, template or response schema)",
      ),
      row("criterion", `${id}.threshold`, `${id}: threshold`, show(fa, "thresholds"), show(fb, "thresholds")),
    );
  }
  return rows;
}
