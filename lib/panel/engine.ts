/**
 * The panel optimizer's engine (pure, no database): every sub-panel of a run's judges × every N from
 * the samples the run stored, no new call. Each configuration's verdicts are aggregated by the run's
 * own aggregation (lib/judging/aggregate.ts, called with the same scale, threshold and panel options),
 * and measured against people's pass/fail labels: accuracy (Wilson interval) and Cohen's κ, the
 * verdicts that flip against the full panel, the cost per verdict, and the paired non-inferiority test
 * against the full panel. Then the cost–agreement Pareto frontier and the recommendation.
 */
import { type Figure, proportionFigure } from "../agreement/metrics";
import { type PanelOptions, panelScore, type SampleScore } from "../judging/aggregate";
import { MIN_PANEL_LABELS } from "../settings/promote-guard";
import type { JudgeCost } from "./cost";
import { orderCheck, randomSubsetMeans } from "./order-check";
import { type Recommendation, recommend } from "./recommend";
import {
  kappaFigure,
  kappaOfCounts,
  type NonInferiority,
  nonInferiority,
  type PassFailCounts,
} from "./stats";
import { withinMeans } from "./within";

/** At most this many judges: 255 sub-panels. */
export const MAX_PANEL_JUDGES = 8;
export const DEFAULT_MARGIN = 0.05;

export type PanelVerdict = {
  caseId: string;
  /** the person's pass/fail; null: not labelled */
  label: boolean | null;
  /** what the run stored for this verdict (null: nothing stored) */
  stored: { passed: boolean; finalScore: number | null } | null;
  /** each judge's samples, in sample-index order */
  samples: Record<string, SampleScore[]>;
};

export type PanelCriterion = {
  id: string;
  type: "llm" | "deterministic";
  scale: [number, number];
  threshold: number;
  panel?: Partial<PanelOptions>;
};

export type PanelInput = {
  criterion: PanelCriterion;
  /** the run's panel for this criterion, in the run's order */
  judges: string[];
  /** the run's N */
  n: number;
  verdicts: PanelVerdict[];
  costs: JudgeCost[];
  margin?: number;
  /** random n-subsets drawn per configuration for the order check (default 20) */
  orderDraws?: number;
  seed?: number;
};

export type PanelConfig = {
  /** "a + b × 3" */
  id: string;
  judges: string[];
  n: number;
  /** calls per verdict: judges × n */
  calls: number;
  /** mean USD per verdict; null when a judge of it has no price */
  costUsd: number | null;
  unpriced: string[];
  /** labelled verdicts */
  labelled: number;
  /** of them, with a verdict (some judge of the configuration answered) */
  answered: number;
  /** labelled verdicts it agrees with the person on (no verdict: not agreeing) */
  correct: number;
  /** correct / labelled, Wilson 95 % */
  accuracy: Figure;
  /** Cohen's κ over the answered labelled verdicts; its interval only on the frontier and the picks */
  kappa: Figure;
  /** the answered labelled verdicts: people's label (pass, fail) × the configuration's */
  counts: PassFailCounts;
  /** verdicts (labelled or not) whose pass/fail differs from the full panel's */
  flips: number;
  /** against the full panel, over the same labelled verdicts */
  test: NonInferiority;
  /** mean accuracy over random n-subsets of each judge's samples (n < N; frontier and picks only) */
  orderCheck?: { draws: number; accuracy: number; min: number; max: number };
  full: boolean;
};

export type PanelReport = {
  criterionId: string;
  judges: string[];
  n: number;
  verdicts: number;
  labelled: number;
  margin: number;
  /** what the frontier orders by: dollars when every judge has a price, else calls per verdict */
  costBasis: "usd" | "calls";
  unpriced: string[];
  /** the full panel recomputed against the run's stored verdicts */
  fullCheck: { verdicts: number; equal: number; differing: string[] };
  full: PanelConfig;
  configs: PanelConfig[];
  /** ids of the Pareto frontier, cheapest first */
  frontier: string[];
  recommendation: Recommendation;
};

export const configId = (judges: readonly string[], n: number) => `${judges.join(" + ")} × ${n}`;

type Outcome = Uint8Array; // per verdict: 0 fail, 1 pass, 2 no verdict

/** Per judge index, per n − 1: each verdict's within-judge mean (aggregateWithinModel), NaN: no answer. */
export type MeansTable = Float64Array[][];

/** The within-judge means of each judge's first n samples, for n = 1..N (the first stage, once). */
export function firstSampleMeans(input: PanelInput): MeansTable {
  return input.judges.map((j) =>
    Array.from({ length: input.n }, (_, k) => withinMeans(input.verdicts, j, (s) => s.slice(0, k + 1))),
  );
}

/**
 * A configuration's verdicts: the second stage of the run's aggregation (panelScore) over the means
 * of its judges that answered; no judge answered: no verdict.
 */
function outcomes(
  rows: readonly Float64Array[],
  verdicts: number,
  threshold: number,
  scores?: (number | null)[],
): Outcome {
  const out = new Uint8Array(verdicts);
  const means: number[] = [];
  for (let i = 0; i < verdicts; i++) {
    means.length = 0;
    for (const r of rows) if (!Number.isNaN(r[i])) means.push(r[i]);
    if (means.length === 0) {
      out[i] = 2;
      scores?.push(null);
      continue;
    }
    const v = panelScore(means, threshold);
    out[i] = v.passed ? 1 : 0;
    scores?.push(v.final_score);
  }
  return out;
}

type Measured = { correct: number; answered: number; counts: PassFailCounts; right: Uint8Array };

function measure(input: PanelInput, out: Outcome): Measured {
  const counts: PassFailCounts = { pp: 0, pf: 0, fp: 0, ff: 0 };
  const right = new Uint8Array(input.verdicts.length);
  let correct = 0;
  let answered = 0;
  input.verdicts.forEach((v, i) => {
    if (v.label === null || out[i] === 2) return;
    answered++;
    const pass = out[i] === 1;
    if (v.label) pass ? counts.pp++ : counts.pf++;
    else pass ? counts.fp++ : counts.ff++;
    if (pass === v.label) {
      correct++;
      right[i] = 1;
    }
  });
  return { correct, answered, counts, right };
}

export function optimizePanel(input: PanelInput): PanelReport {
  const { judges, n: N } = input;
  if (judges.length === 0 || judges.length > MAX_PANEL_JUDGES)
    throw new RangeError(`a panel of 1 to ${MAX_PANEL_JUDGES} judges, got ${judges.length}`);
  const margin = input.margin ?? DEFAULT_MARGIN;
  const costOf = new Map(input.costs.map((c) => [c.judge, c.perN]));
  const unpriced = judges.filter((j) => !costOf.get(j));
  const labelled = input.verdicts.filter((v) => v.label !== null).length;
  const V = input.verdicts.length;
  const threshold = input.criterion.threshold;
  const table = firstSampleMeans(input);
  const fullScores: (number | null)[] = [];
  const fullOut = outcomes(
    judges.map((_, k) => table[k][N - 1]),
    V,
    threshold,
    fullScores,
  );
  const fullRun = { out: fullOut };
  const fullM = measure(input, fullOut);
  const differing: string[] = [];
  let checked = 0;
  input.verdicts.forEach((v, i) => {
    if (!v.stored) return;
    checked++;
    if (v.stored.passed !== (fullOut[i] === 1) || v.stored.finalScore !== fullScores[i])
      differing.push(v.caseId);
  });

  const configs: PanelConfig[] = [];
  for (let mask = 1; mask < 1 << judges.length; mask++) {
    const idx = judges.map((_, k) => k).filter((k) => mask & (1 << k));
    const sub = idx.map((k) => judges[k]);
    for (let n = 1; n <= N; n++) {
      const isFull = sub.length === judges.length && n === N;
      const out = isFull
        ? fullRun.out
        : outcomes(
            idx.map((k) => table[k][n - 1]),
            V,
            threshold,
          );
      const m = isFull ? fullM : measure(input, out);
      let better = 0;
      let worse = 0;
      let flips = 0;
      input.verdicts.forEach((v, i) => {
        if (out[i] !== fullRun.out[i]) flips++;
        if (v.label === null) return;
        if (m.right[i] && !fullM.right[i]) better++;
        else if (!m.right[i] && fullM.right[i]) worse++;
      });
      const costs = sub.map((j) => costOf.get(j)?.[n - 1]);
      const id = configId(sub, n);
      configs.push({
        id,
        judges: sub,
        n,
        calls: sub.length * n,
        costUsd: costs.every((x) => x !== undefined) ? (costs as number[]).reduce((a, b) => a + b, 0) : null,
        unpriced: sub.filter((j) => !costOf.get(j)),
        labelled,
        answered: m.answered,
        correct: m.correct,
        accuracy: proportionFigure(m.correct, labelled),
        kappa: { value: kappaOfCounts(m.counts), low: null, high: null, n: m.answered, method: "bootstrap" },
        counts: m.counts,
        flips,
        test: nonInferiority(better, worse, labelled, margin),
        full: isFull,
      });
    }
  }
  const costBasis = unpriced.length ? "calls" : "usd";
  const cost = (c: PanelConfig) => (costBasis === "usd" ? (c.costUsd as number) : c.calls);
  const frontier = paretoFrontier(configs, cost);
  const recommendation = recommend(configs, cost, labelled, MIN_PANEL_LABELS);
  const full = configs.find((c) => c.full) as PanelConfig;
  // the figures that take longer: only where a person looks (frontier, full panel, the picks)
  const draws = randomSubsetMeans(input, input.orderDraws ?? 20, input.seed);
  const detailed = new Set([...frontier, full.id, ...recommendationIds(recommendation)]);
  for (const c of configs) {
    if (!detailed.has(c.id)) continue;
    c.kappa = kappaFigure(c.counts, { seed: input.seed });
    if (c.n < N)
      c.orderCheck = orderCheck(
        c,
        draws,
        (d) =>
          measure(
            input,
            outcomes(
              c.judges.map((j) => draws.means(j, c.n, d)),
              V,
              threshold,
            ),
          ).correct,
      );
  }
  return {
    criterionId: input.criterion.id,
    judges,
    n: N,
    verdicts: input.verdicts.length,
    labelled,
    margin,
    costBasis,
    unpriced,
    fullCheck: { verdicts: checked, equal: checked - differing.length, differing },
    full,
    configs,
    frontier,
    recommendation,
  };
}

function recommendationIds(r: Recommendation): string[] {
  return [
    r.status === "recommended" ? r.config : null,
    r.status === "needs_labels" ? r.candidate : null,
  ].filter((x): x is string => typeof x === "string");
}

/**
 * The cost–agreement Pareto frontier: cheapest first (ties: more agreement, fewer calls), a
 * configuration is on it when it agrees with people on more labelled verdicts than every cheaper one.
 */
export function paretoFrontier(configs: readonly PanelConfig[], cost: (c: PanelConfig) => number): string[] {
  const sorted = [...configs].sort(
    (a, b) => cost(a) - cost(b) || b.correct - a.correct || a.calls - b.calls || a.id.localeCompare(b.id),
  );
  const out: string[] = [];
  let best = -1;
  for (const c of sorted)
    if (c.correct > best) {
      out.push(c.id);
      best = c.correct;
    }
  return out;
}
