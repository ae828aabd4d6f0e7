/**
 * The memory judge's order audit: the same query's candidates judged under two different shuffles
 * (two experiments differing only in their shuffle salt). Per query the Jaccard similarity of the
 * two kept sets; their mean with a bootstrap interval over queries, and the share of queries whose
 * kept sets are identical with its Wilson interval. A query either run failed on is named apart.
 */
import type { BootstrapOptions } from "../stats/bootstrap";
import { bootstrapFigure, type Figure, proportionFigure } from "./metrics";

type Row = { queryId: string; retrieved: string[]; error: string | null };

export type ShuffleQuery = { queryId: string; jaccard: number; onlyA: string[]; onlyB: string[] };
export type ShuffleConsistency = {
  /** queries both experiments answered */
  n: number;
  meanJaccard: Figure;
  identical: Figure;
  perQuery: ShuffleQuery[];
  /** queries one of the two failed on (or only one has): left out, named */
  leftOut: string[];
};

export function jaccard(a: readonly string[], b: readonly string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  const union = new Set([...A, ...B]).size;
  if (union === 0) return 1;
  return [...A].filter((x) => B.has(x)).length / union;
}

export function shuffleConsistency(
  a: readonly Row[],
  b: readonly Row[],
  bootstrap?: BootstrapOptions,
): ShuffleConsistency {
  const byB = new Map(b.map((r) => [r.queryId, r]));
  const perQuery: ShuffleQuery[] = [];
  const leftOut: string[] = [];
  for (const ra of a) {
    const rb = byB.get(ra.queryId);
    if (!rb || ra.error || rb.error) {
      leftOut.push(ra.queryId);
      continue;
    }
    const B = new Set(rb.retrieved);
    const A = new Set(ra.retrieved);
    perQuery.push({
      queryId: ra.queryId,
      jaccard: jaccard(ra.retrieved, rb.retrieved),
      onlyA: [...A].filter((x) => !B.has(x)),
      onlyB: [...B].filter((x) => !A.has(x)),
    });
  }
  const inA = new Set(a.map((r) => r.queryId));
  for (const rb of b) if (!inA.has(rb.queryId)) leftOut.push(rb.queryId);
  const mean = (s: readonly ShuffleQuery[]) =>
    s.length ? s.reduce((x, q) => x + q.jaccard, 0) / s.length : null;
  return {
    n: perQuery.length,
    meanJaccard: bootstrapFigure(perQuery, mean, bootstrap),
    identical: proportionFigure(perQuery.filter((q) => q.jaccard === 1).length, perQuery.length),
    perQuery,
    leftOut,
  };
}
