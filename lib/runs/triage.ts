import type { ResultRow, RunCase, Sample } from "../domain";
import type { CriterionVerdict } from "../judging/aggregate";
import { getOrInsert } from "../map-utils";

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

/** One judge's samples in one cell. */
export type JudgeInCell = {
  judge: string;
  answered: number[];
  failed: number;
  mean: number | null;
};

/** One case × criterion cell, with what triage filters and sorts on. */
export type TriageCell = {
  caseId: string;
  criterionId: string;
  result: ResultRow | undefined;
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
};

type SampleLike = Pick<Sample, "caseId" | "criterionId" | "judge" | "score" | "error">;

const answered = (s: SampleLike) => s.score !== null && !s.error;

function std(xs: number[]): number | null {
  if (xs.length < 2) return null;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
}

/** Every cell of the run, in case then criterion order, from its verdicts and current samples. */
export function triageCells(
  cases: Pick<RunCase, "caseId" | "criteria">[],
  results: ResultRow[],
  samples: SampleLike[],
): TriageCell[] {
  const key = (c: string, k: string) => `${c}\u0000${k}`;
  const byCell = new Map<string, SampleLike[]>();
  for (const s of samples) getOrInsert(byCell, key(s.caseId, s.criterionId), () => []).push(s);
  const resultOf = new Map(results.map((r) => [key(r.caseId, r.criterionId), r]));
  const out: TriageCell[] = [];
  for (const c of cases) {
    for (const cr of c.criteria) {
      const k = key(c.caseId, cr.id);
      const result = resultOf.get(k);
      const v: Partial<CriterionVerdict> = result?.data ?? {};
      const list = byCell.get(k) ?? [];
      const byJudge = new Map<string, JudgeInCell>();
      for (const s of list) {
        const j = getOrInsert(byJudge, s.judge, () => ({
          judge: s.judge,
          answered: [],
          failed: 0,
          mean: null,
        }));
        if (answered(s)) j.answered.push(s.score as number);
        else j.failed++;
      }
      for (const j of byJudge.values())
        j.mean = j.answered.length ? j.answered.reduce((a, b) => a + b, 0) / j.answered.length : null;
      const cov = v.coverage;
      const within = [...byJudge.values()].map((j) => std(j.answered)).filter((x): x is number => x !== null);
      out.push({
        caseId: c.caseId,
        criterionId: cr.id,
        result,
        score: result?.finalScore ?? null,
        threshold: v.threshold ?? cr.threshold,
        failedSamples: list.filter((s) => !answered(s)).length,
        flagged: result?.flagForReview ?? false,
        unstable: v.straddles_threshold ?? false,
        lowCoverage: !cov || cov.samples_answered < cov.samples_asked,
        coverageRatio: cov && cov.samples_asked > 0 ? cov.samples_answered / cov.samples_asked : 0,
        spread:
          v.cross_model_std ?? (within.length ? within.reduce((a, b) => a + b, 0) / within.length : null),
        byJudge,
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
    case "fail":
      return cell.result !== undefined && !cell.result.passed;
    case "flagged":
      return cell.flagged;
    case "unstable":
      return j
        ? j.answered.some((x) => x >= cell.threshold) && j.answered.some((x) => x < cell.threshold)
        : cell.unstable;
    case "low-coverage":
      return j ? j.answered.length < n : cell.lowCoverage;
  }
}

export type TriageRow = { caseId: string; cells: { cell: TriageCell; match: boolean }[] };

export type TriageView = {
  /** the criteria shown as columns (one when filtered to a criterion) */
  criteria: string[];
  /** cases with at least one matching cell (every case under "all" with no judge), in the chosen order */
  rows: TriageRow[];
  /** matching cells per status, under the current judge and criterion filters: the status buttons' counts */
  counts: Record<TriageStatus, number>;
  matching: number;
};

/** Filters and sorts the cases × criteria table. */
export function triageView(
  cells: TriageCell[],
  caseOrder: string[],
  allCriteria: string[],
  q: TriageQuery,
  n = 1,
): TriageView {
  const criteria = q.criterion ? allCriteria.filter((c) => c === q.criterion) : allCriteria;
  const shown = cells.filter((c) => criteria.includes(c.criterionId));
  const counts = Object.fromEntries(
    triageStatuses.map((s) => [s, shown.filter((c) => cellMatches(c, s, q.judge, n)).length]),
  ) as Record<TriageStatus, number>;
  const byCase = new Map<string, { cell: TriageCell; match: boolean }[]>();
  for (const c of shown)
    getOrInsert(byCase, c.caseId, () => []).push({ cell: c, match: cellMatches(c, q.status, q.judge, n) });
  const unfiltered = q.status === "all" && !q.judge;
  let rows: TriageRow[] = caseOrder
    .map((caseId) => ({ caseId, cells: byCase.get(caseId) ?? [] }))
    .filter((r) => unfiltered || r.cells.some((c) => c.match));
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
  return { criteria, rows, counts, matching: counts[q.status] };
}
