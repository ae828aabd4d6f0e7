import type { ResultRow, Sample } from "../domain";
import type { CriterionVerdict } from "../judging/aggregate";
import { getOrInsert } from "../map-utils";
import type { CaseCriterion } from "./plan-run";

/**
 * Run triage: which case × criterion cells need a look (failed samples, a FAIL verdict, a review
 * flag, samples on both sides of the threshold, low coverage), for one judge or the panel, filtered
 * and sorted as the run page's URL says. Pure: the page and its client controls both use it. The
 * work that fixes the cells (retry, re-sample) is lib/runs/requeue.ts.
 */

/** What the status filter keeps. `failed`: a sample failed; `fail`: the verdict is FAIL. */
export const triageStatuses = ["all", "failed", "fail", "flagged", "unstable", "low-coverage"] as const;
export type TriageStatus = (typeof triageStatuses)[number];

export const triageStatusLabels: Record<TriageStatus, string> = {
  all: "All",
  failed: "Failed samples",
  fail: "Verdict FAIL",
  flagged: "Flagged",
  unstable: "Unstable",
  "low-coverage": "Low coverage",
};

/** How the cases are ordered: by id, or worst first by their shown cells. */
export const triageSorts = ["case", "score", "failures", "spread", "coverage"] as const;
export type TriageSort = (typeof triageSorts)[number];

export const triageSortLabels: Record<TriageSort, string> = {
  case: "case id",
  score: "lowest score first",
  failures: "most failed samples first",
  spread: "widest spread first",
  coverage: "lowest coverage first",
};

/** The triage view, as the run page's URL says it (`?status=failed&judge=local:a&crit=correctness&sort=score`). */
export type TriageQuery = {
  status: TriageStatus;
  judge: string | null;
  criterion: string | null;
  sort: TriageSort;
};

export const DEFAULT_TRIAGE: TriageQuery = { status: "all", judge: null, criterion: null, sort: "case" };

type Params = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** Reads the triage view from search params; an unknown value falls back to its default (a stale link still opens). */
export function parseTriageQuery(
  sp: Params,
  known: { judges: readonly string[]; criteria: readonly string[] },
): TriageQuery {
  const status = one(sp.status);
  const sort = one(sp.sort);
  const judge = one(sp.judge);
  const crit = one(sp.crit);
  return {
    status: (triageStatuses as readonly string[]).includes(status ?? "") ? (status as TriageStatus) : "all",
    sort: (triageSorts as readonly string[]).includes(sort ?? "") ? (sort as TriageSort) : "case",
    judge: judge && known.judges.includes(judge) ? judge : null,
    criterion: crit && known.criteria.includes(crit) ? crit : null,
  };
}

/** The search params of a triage view (defaults left out), plus `extra` (the selected cell). */
export function triageSearch(q: TriageQuery, extra: Record<string, string | undefined> = {}): string {
  const p = new URLSearchParams();
  if (q.status !== "all") p.set("status", q.status);
  if (q.judge) p.set("judge", q.judge);
  if (q.criterion) p.set("crit", q.criterion);
  if (q.sort !== "case") p.set("sort", q.sort);
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : "";
}

/**
 * One judge's current samples in one cell, as counts and sums (SQL gives them for a whole run
 * without loading its samples; cellJudgeStatsOf gives the same from sample rows). `sum`, `sumSq`,
 * `min` and `max` are over the answered samples (a score and no error); null when none answered.
 */
export type CellJudgeStats = {
  caseId: string;
  criterionId: string;
  judge: string;
  answered: number;
  failed: number;
  sum: number | null;
  sumSq: number | null;
  min: number | null;
  max: number | null;
};

/** One judge's samples in one cell. */
export type JudgeInCell = {
  judge: string;
  /** samples answered (a score, no error) and failed */
  answered: number;
  failed: number;
  mean: number | null;
  /** population std of the answered scores; null with fewer than 2 */
  std: number | null;
  min: number | null;
  max: number | null;
};

/** What triage reads of a cell's stored verdict (the results row and a few fields of its data). */
export type VerdictSummary = {
  caseId: string;
  criterionId: string;
  finalScore: number | null;
  passed: boolean;
  flagForReview: boolean;
  /** the verdict's own threshold, else the criterion's */
  threshold: number | null;
  /** samples answered of asked, when the verdict has a coverage */
  coverage: { samplesAnswered: number; samplesAsked: number } | null;
  straddlesThreshold: boolean;
  crossModelStd: number | null;
};

/** One case × criterion cell, with what triage filters and sorts on. */
export type TriageCell = {
  caseId: string;
  criterionId: string;
  verdict: VerdictSummary | undefined;
  score: number | null;
  threshold: number;
  failedSamples: number;
  flagged: boolean;
  unstable: boolean;
  lowCoverage: boolean;
  /** samples answered of asked (0 for a cell with no verdict yet) */
  coverageRatio: number;
  /** the cross-judge std, else the mean within-judge std; null with one answered sample */
  spread: number | null;
  byJudge: Map<string, JudgeInCell>;
  /** the run is live and some of the cell's samples are pending: its verdict may still change */
  partial: boolean;
};

type SampleLike = Pick<Sample, "caseId" | "criterionId" | "judge" | "score" | "error">;

const answered = (s: Pick<SampleLike, "score" | "error">) => s.score !== null && !s.error;
/** A case × criterion cell's key in maps. */
export const cellKey = (caseId: string, criterionId: string) => `${caseId}\u0000${criterionId}`;

/** Per cell and judge counts and sums from sample rows: what getCellJudgeStats gives from SQL. */
export function cellJudgeStatsOf(samples: readonly SampleLike[]): CellJudgeStats[] {
  const by = new Map<string, CellJudgeStats>();
  for (const s of samples) {
    const g = getOrInsert(by, `${cellKey(s.caseId, s.criterionId)}\u0000${s.judge}`, () => ({
      caseId: s.caseId,
      criterionId: s.criterionId,
      judge: s.judge,
      answered: 0,
      failed: 0,
      sum: null,
      sumSq: null,
      min: null,
      max: null,
    }));
    if (!answered(s)) {
      g.failed++;
      continue;
    }
    const x = s.score as number;
    g.answered++;
    g.sum = (g.sum ?? 0) + x;
    g.sumSq = (g.sumSq ?? 0) + x * x;
    g.min = g.min === null ? x : Math.min(g.min, x);
    g.max = g.max === null ? x : Math.max(g.max, x);
  }
  return [...by.values()];
}

/** Mean and population std from counts and sums (0 when every score is the same). */
export function momentsOf(g: Pick<CellJudgeStats, "answered" | "sum" | "sumSq" | "min" | "max">): {
  mean: number | null;
  std: number | null;
} {
  if (g.answered === 0 || g.sum === null) return { mean: null, std: null };
  const mean = g.sum / g.answered;
  if (g.answered < 2) return { mean, std: null };
  if (g.min === g.max) return { mean, std: 0 };
  const ss = Math.max(0, (g.sumSq ?? 0) - (g.sum * g.sum) / g.answered);
  return { mean, std: Math.sqrt(ss / g.answered) };
}

/** What triage reads of stored verdicts (getVerdictSummaries gives the same from SQL). */
export function verdictSummaries(results: readonly ResultRow[]): VerdictSummary[] {
  return results.map((r) => {
    const v: Partial<CriterionVerdict> = r.data ?? {};
    return {
      caseId: r.caseId,
      criterionId: r.criterionId,
      finalScore: r.finalScore,
      passed: r.passed,
      flagForReview: r.flagForReview,
      threshold: v.threshold ?? null,
      coverage: v.coverage
        ? { samplesAnswered: v.coverage.samples_answered, samplesAsked: v.coverage.samples_asked }
        : null,
      straddlesThreshold: v.straddles_threshold ?? false,
      crossModelStd: v.cross_model_std ?? null,
    };
  });
}

type CaseCriteria = { caseId: string; criteria: readonly Pick<CaseCriterion, "id" | "threshold">[] };

/** Every cell of the run, in case then criterion order, from its verdicts and current samples. */
export function triageCells(
  cases: readonly CaseCriteria[],
  results: ResultRow[],
  samples: SampleLike[],
): TriageCell[] {
  return triageCellsFrom(cases, verdictSummaries(results), cellJudgeStatsOf(samples));
}

/** Every cell of the run, in case then criterion order, from verdict summaries and per-judge counts. */
export function triageCellsFrom(
  cases: readonly CaseCriteria[],
  verdicts: readonly VerdictSummary[],
  stats: readonly CellJudgeStats[],
  { live = false }: { live?: boolean } = {},
): TriageCell[] {
  const byCell = new Map<string, CellJudgeStats[]>();
  for (const g of stats) getOrInsert(byCell, cellKey(g.caseId, g.criterionId), () => []).push(g);
  const verdictOf = new Map(verdicts.map((r) => [cellKey(r.caseId, r.criterionId), r]));
  const out: TriageCell[] = [];
  for (const c of cases) {
    for (const cr of c.criteria) {
      const k = cellKey(c.caseId, cr.id);
      const verdict = verdictOf.get(k);
      const byJudge = new Map<string, JudgeInCell>();
      let failedSamples = 0;
      for (const g of byCell.get(k) ?? []) {
        byJudge.set(g.judge, {
          judge: g.judge,
          answered: g.answered,
          failed: g.failed,
          ...momentsOf(g),
          min: g.min,
          max: g.max,
        });
        failedSamples += g.failed;
      }
      const cov = verdict?.coverage;
      const within = [...byJudge.values()].map((j) => j.std).filter((x): x is number => x !== null);
      out.push({
        caseId: c.caseId,
        criterionId: cr.id,
        verdict,
        score: verdict?.finalScore ?? null,
        threshold: verdict?.threshold ?? cr.threshold,
        failedSamples,
        flagged: verdict?.flagForReview ?? false,
        unstable: verdict?.straddlesThreshold ?? false,
        lowCoverage: !cov || cov.samplesAnswered < cov.samplesAsked,
        coverageRatio: cov && cov.samplesAsked > 0 ? cov.samplesAnswered / cov.samplesAsked : 0,
        spread:
          verdict?.crossModelStd ??
          (within.length ? within.reduce((a, b) => a + b, 0) / within.length : null),
        byJudge,
        partial: live && (!cov || cov.samplesAnswered + failedSamples < cov.samplesAsked),
      });
    }
  }
  return out;
}

/**
 * Whether a cell is shown under a status, for the panel or for one judge. With a judge: only cells
 * it was asked on; `failed` means its own samples failed, `unstable` its own samples straddle the
 * threshold, `low-coverage` it answered fewer samples than `n`.
 */
export function cellMatches(cell: TriageCell, status: TriageStatus, judge: string | null, n = 1): boolean {
  const j = judge ? cell.byJudge.get(judge) : undefined;
  if (judge && !j) return false;
  switch (status) {
    case "all":
      return true;
    case "failed":
      return j ? j.failed > 0 : cell.failedSamples > 0;
    // a partial verdict may still change: it is neither a FAIL nor flagged yet
    case "fail":
      return !cell.partial && cell.verdict !== undefined && !cell.verdict.passed;
    case "flagged":
      return !cell.partial && cell.flagged;
    case "unstable":
      return j
        ? j.max !== null && j.min !== null && j.max >= cell.threshold && j.min < cell.threshold
        : cell.unstable;
    case "low-coverage":
      return j ? j.answered < n : cell.lowCoverage;
  }
}

export type TriageRow = { caseId: string; cells: { cell: TriageCell; match: boolean }[] };

export type TriageView = {
  /** the criteria shown as columns (one when filtered to a criterion; under a filter, those with a match) */
  criteria: string[];
  /**
   * cases with at least one matching cell (every case under "all" with no judge), in the chosen
   * order; under a filter each row holds its matching cells only
   */
  rows: TriageRow[];
  /**
   * the status buttons' counts, under the current judge and criterion filters: matching cells per
   * status, except `failed`, which counts failed samples (the run's coverage counts the same)
   */
  counts: Record<TriageStatus, number>;
  /** cells matching the current status */
  matching: number;
  /** cells under the judge and criterion filters (with a judge: the cells it was asked on), = counts.all */
  cells: number;
  /** of those, the cells with a verdict */
  withVerdict: number;
};

/** Failed samples of a cell: the judge's own with a judge chosen, else every judge's. */
const failedOf = (c: TriageCell, judge: string | null) =>
  judge ? (c.byJudge.get(judge)?.failed ?? 0) : c.failedSamples;

/**
 * What the verdict table's heading says it rests on: cells with a verdict of the cells under the
 * judge and criterion filters (the same cells "All (N)" counts), and how many match the status.
 */
export function verdictsHeading(view: TriageView, q: TriageQuery): string {
  const of = q.judge ? `cells ${q.judge} was asked on` : "case × criterion cells";
  const status =
    q.status === "all"
      ? ""
      : ` · ${view.matching} ${view.matching === 1 ? "matches" : "match"} ${triageStatusLabels[q.status]}`;
  return `${view.withVerdict} of ${view.cells} ${of} ${view.withVerdict === 1 && view.cells === 1 ? "has" : "have"} a verdict${status}`;
}

/** Filters and sorts the cases × criteria table. */
export function triageView(
  cells: TriageCell[],
  caseOrder: string[],
  allCriteria: string[],
  q: TriageQuery,
  n = 1,
): TriageView {
  const columns = q.criterion ? allCriteria.filter((c) => c === q.criterion) : allCriteria;
  const shown = cells.filter((c) => columns.includes(c.criterionId));
  const counts = Object.fromEntries(
    triageStatuses.map((s) => {
      const hits = shown.filter((c) => cellMatches(c, s, q.judge, n));
      return [s, s === "failed" ? hits.reduce((a, c) => a + failedOf(c, q.judge), 0) : hits.length];
    }),
  ) as Record<TriageStatus, number>;
  const unfiltered = q.status === "all" && !q.judge;
  const byCase = new Map<string, { cell: TriageCell; match: boolean }[]>();
  let matching = 0;
  for (const c of shown) {
    const match = cellMatches(c, q.status, q.judge, n);
    if (match) matching++;
    // a filter hides what does not match: the cell is left out of its row
    if (match || unfiltered) getOrInsert(byCase, c.caseId, () => []).push({ cell: c, match });
  }
  let rows: TriageRow[] = caseOrder
    .map((caseId) => ({ caseId, cells: byCase.get(caseId) ?? [] }))
    .filter((r) => unfiltered || r.cells.length > 0);
  const withMatch = new Set(rows.flatMap((r) => r.cells.map((c) => c.cell.criterionId)));
  const criteria = unfiltered ? columns : columns.filter((c) => withMatch.has(c));
  const asked = shown.filter((c) => cellMatches(c, "all", q.judge, n));
  const matched = (r: TriageRow) => r.cells.filter((c) => c.match).map((c) => c.cell);
  const worst = (r: TriageRow, f: (c: TriageCell) => number) => Math.min(...matched(r).map(f), Infinity);
  const sorters: Record<TriageSort, ((r: TriageRow) => number) | null> = {
    case: null,
    // a cell with no score (no judge answered) is the worst of all
    score: (r) => worst(r, (c) => (c.score === null ? -Infinity : c.score - c.threshold)),
    failures: (r) => -matched(r).reduce((a, c) => a + c.failedSamples, 0),
    spread: (r) => worst(r, (c) => -(c.spread ?? -1)),
    coverage: (r) => worst(r, (c) => c.coverageRatio),
  };
  const by = sorters[q.sort];
  if (by) {
    const keyed = rows.map((r, i) => ({ r, i, k: by(r) }));
    keyed.sort((a, b) => a.k - b.k || a.i - b.i);
    rows = keyed.map((x) => x.r);
  }
  return {
    criteria,
    rows,
    counts,
    matching,
    cells: asked.length,
    withVerdict: asked.filter((c) => c.verdict !== undefined).length,
  };
}
