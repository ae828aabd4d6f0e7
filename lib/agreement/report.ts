/**
 * The figures of a stored agreement set (an import or a pairwise audit): per judge, its agreement
 * with the gold labels over the items both labelled, and what it rests on: the gold items it
 * labelled (n), the ones it did not (named, never guessed), the ones it labelled that have no gold.
 */
import type { AgreementItemRow, AgreementJudgmentRow, AgreementSetRow } from "@/db/queries/agreement";
import type { BootstrapOptions } from "../stats/bootstrap";
import { type LabelPair, type PointwiseReport, pointwiseAgreement } from "./metrics";
import { type PairwiseRow, type PositionAudit, positionAudit, type Winner } from "./pairwise";

/** LLMBar's own statistics.json figures, computed as its evaluate.py computes them. */
export type LlmbarStatistics = {
  n: number;
  correct_False: number;
  correct_True: number;
  /** (correct_False + correct_True) / 2n, LLMBar's "average accuracy" (Acc.) */
  correct_average: number;
  correct_both: number;
  /** same winner in both orders, LLMBar's "positional agreement rate" (Agr.): two null winners count as equal */
  equal: number;
};

export type JudgeReport = {
  judge: string;
  /** gold items this judge answered (in at least one order) */
  n: number;
  /** gold items the judge has no judgment for */
  missing: string[];
  /** items the judge labelled that have no gold label */
  noGold: string[];
  /** items with a judgment that is no usable answer (null label) */
  unusable: string[];
  pointwise?: PointwiseReport;
  pairwise?: PositionAudit;
  llmbar?: LlmbarStatistics;
  /** tokens and cost of a pairwise run's calls; null cost: some call had no price */
  calls?: { count: number; inputTokens: number; outputTokens: number; costUsd: number | null };
};

export type SetReport = {
  set: {
    id: string;
    kind: AgreementSetRow["kind"];
    name: string;
    createdAt: string;
    options: Record<string, unknown>;
  };
  /** "pass_fail", "graded" or "pairwise" */
  labels: string;
  items: number;
  goldItems: number;
  judges: JudgeReport[];
};

export function llmbarStatistics(rows: readonly PairwiseRow[]): LlmbarStatistics {
  let f = 0;
  let t = 0;
  let both = 0;
  let equal = 0;
  for (const r of rows) {
    const o = r.original ?? null;
    const s = r.swapped ?? null;
    if (o === r.gold) f++;
    if (s === r.gold) t++;
    if (o === r.gold && s === r.gold) both++;
    // as LLMBar's evaluate.py: output_True == output_False, so None == None counts as equal
    if (o === s) equal++;
  }
  const n = rows.length;
  return {
    n,
    correct_False: f,
    correct_True: t,
    correct_average: n ? (f + t) / 2 / n : Number.NaN,
    correct_both: both,
    equal,
  };
}

type SetJudgment = Pick<AgreementJudgmentRow, "itemId" | "judge" | "label"> & Partial<AgreementJudgmentRow>;

export type SetReportOptions = {
  bootstrap?: BootstrapOptions;
  /** called after each judge (done of total) */
  onProgress?: (done: number, total: number) => void;
};

/** The figures of a set (see setReport), one judge at a time, yielding between judges. */
export function* setReportSteps(
  set: AgreementSetRow,
  items: readonly AgreementItemRow[],
  judgments: readonly SetJudgment[],
  opts: SetReportOptions = {},
): Generator<number, SetReport> {
  const o = set.options;
  const labels =
    set.kind === "llmbar" || set.kind === "pairwise"
      ? "pairwise"
      : o.kind === "graded"
        ? "graded"
        : "pass_fail";
  const byJudge = new Map<string, SetJudgment[]>();
  for (const j of judgments) {
    const mine = byJudge.get(j.judge);
    if (mine) mine.push(j);
    else byJudge.set(j.judge, [j]);
  }
  const judges = [...byJudge.keys()].sort();
  const ctx = judgeContext(set, items, labels, opts.bootstrap);
  const reports: JudgeReport[] = [];
  for (const judge of judges) {
    reports.push(judgeReport(ctx, judge, byJudge.get(judge) as SetJudgment[]));
    opts.onProgress?.(reports.length, judges.length);
    yield reports.length;
  }
  return {
    set: { id: set.id, kind: set.kind, name: set.name, createdAt: set.createdAt.toISOString(), options: o },
    labels,
    items: items.length,
    goldItems: ctx.goldItems.length,
    judges: reports,
  };
}

/** The figures of a set, all at once. */
export function setReport(
  set: AgreementSetRow,
  items: readonly AgreementItemRow[],
  judgments: readonly SetJudgment[],
  opts: SetReportOptions = {},
): SetReport {
  const steps = setReportSteps(set, items, judgments, opts);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

type JudgeContext = ReturnType<typeof judgeContext>;

function judgeContext(
  set: AgreementSetRow,
  items: readonly AgreementItemRow[],
  labels: string,
  bootstrap: BootstrapOptions | undefined,
) {
  const goldOf = new Map(items.map((i) => [i.itemId, i.gold]));
  const positionOf = new Map(items.map((i) => [i.itemId, i.position]));
  const byPosition = (a: string, b: string) =>
    (positionOf.get(a) ?? Number.MAX_SAFE_INTEGER) - (positionOf.get(b) ?? Number.MAX_SAFE_INTEGER);
  const goldItems = items.filter((i) => i.gold !== null);
  return { set, labels, goldOf, byPosition, goldItems, bootstrap };
}

function judgeReport(ctx: JudgeContext, judge: string, mine: readonly SetJudgment[]): JudgeReport {
  const { set, labels, goldOf, byPosition, goldItems } = ctx;
  const o = set.options;
  const opts = { bootstrap: ctx.bootstrap };
  {
    const answered = new Set(mine.map((j) => j.itemId));
    const missing = goldItems.filter((i) => !answered.has(i.itemId)).map((i) => i.itemId);
    const noGold = [...answered]
      .filter((id) => goldOf.get(id) === null || goldOf.get(id) === undefined)
      .sort(byPosition);
    const unusable = [...new Set(mine.filter((j) => j.label === null).map((j) => j.itemId))].sort(byPosition);
    const calls = mine.some((j) => j.inputTokens || j.outputTokens || (j.costUsd ?? null) !== null)
      ? {
          count: mine.length,
          inputTokens: mine.reduce((a, j) => a + (j.inputTokens ?? 0), 0),
          outputTokens: mine.reduce((a, j) => a + (j.outputTokens ?? 0), 0),
          costUsd: mine.every((j) => (j.costUsd ?? null) !== null || j.error)
            ? mine.reduce((a, j) => a + (j.costUsd ?? 0), 0)
            : null,
        }
      : undefined;
    if (labels === "pairwise") {
      const byItem = new Map<string, PairwiseRow>();
      for (const i of goldItems) byItem.set(i.itemId, { itemId: i.itemId, gold: i.gold as 0 | 1 | 2 });
      for (const j of mine) {
        const row = byItem.get(j.itemId);
        if (!row || (j.order !== "original" && j.order !== "swapped")) continue;
        row[j.order] = j.label as Winner;
      }
      const rows = [...byItem.values()].filter((r) => r.original !== undefined || r.swapped !== undefined);
      return {
        judge,
        n: rows.length,
        missing,
        noGold,
        unusable,
        pairwise: positionAudit(rows, opts.bootstrap),
        ...(set.kind === "llmbar" ? { llmbar: llmbarStatistics(rows) } : {}),
        ...(calls ? { calls } : {}),
      };
    }
    const pairs: LabelPair[] = mine
      .filter((j) => j.label !== null && goldOf.get(j.itemId) !== null && goldOf.get(j.itemId) !== undefined)
      .map((j) => ({ itemId: j.itemId, gold: goldOf.get(j.itemId) as number, judge: j.label as number }));
    const scale = Array.isArray(o.scale) ? (o.scale as [number, number]) : undefined;
    const categories = scale
      ? Array.from({ length: scale[1] - scale[0] + 1 }, (_, k) => scale[0] + k)
      : undefined;
    return {
      judge,
      n: pairs.length,
      missing,
      noGold,
      unusable,
      pointwise: pointwiseAgreement(pairs, {
        kind: labels === "graded" ? "graded" : "pass_fail",
        scale: categories,
        cut: typeof o.cut === "number" ? o.cut : undefined,
        bootstrap: opts.bootstrap,
      }),
      ...(calls ? { calls } : {}),
    };
  }
}
