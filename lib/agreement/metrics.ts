/**
 * Agreement of one judge with gold labels (a person's, or a published set's) over the items both
 * labelled: accuracy, Cohen's κ, quadratic-weighted κ (graded labels), Krippendorff's α, the
 * confusion matrix and the disagreements. Every figure carries its n and a 95 % interval: Wilson for
 * a proportion (accuracy), a percentile bootstrap for κ, weighted κ and α (from the
 * confusion cells' counts, which is the same as resampling items).
 *
 * Items a judge did not answer are not guessed: the caller leaves them out and names them apart.
 */
import { type BootstrapOptions, bootstrapStatCI } from "../stats/bootstrap";
import { bootstrapCountsCI, type CountStat } from "../stats/bootstrap-counts";
import {
  cohenKappa,
  cohenKappaFromConfusion,
  confusionMatrix,
  weightedKappaFromConfusion,
} from "../stats/kappa";
import {
  krippendorffAlphaInterval,
  krippendorffAlphaIntervalFromPairs,
  krippendorffAlphaNominal,
  krippendorffAlphaNominalFromConfusion,
} from "../stats/krippendorff";
import { wilsonInterval } from "../stats/wilson";

export type FigureMethod = "wilson" | "bootstrap";

/** A figure with what it rests on: n items and its 95 % interval (null where undefined). */
export type Figure = {
  value: number | null;
  low: number | null;
  high: number | null;
  n: number;
  method: FigureMethod;
};

/** One item both the gold and the judge labelled. pass/fail is 1 (pass) / 0 (fail). */
export type LabelPair = {
  itemId: string;
  gold: number;
  judge: number;
  /** the judge's raw value where `judge` is rounded (a mean score), for α and for the disagreements */
  judgeRaw?: number;
};

export type PointwiseOptions = {
  /** pass/fail labels (1/0), or grades on an ordered scale */
  kind: "pass_fail" | "graded";
  /** graded: the ordered scale (e.g. 0, 1, 2, 3), so distances count grades never used */
  scale?: readonly number[];
  /** graded: also κ and accuracy on relevant (grade ≥ cut) vs not */
  cut?: number;
  bootstrap?: BootstrapOptions;
};

export type Confusion = {
  /** the categories, in the order of the rows (gold) and columns (judge) */
  categories: number[];
  matrix: number[][];
};

export type PointwiseReport = {
  n: number;
  accuracy: Figure;
  /** Cohen's κ, nominal (on pass/fail, or on the grades as categories) */
  kappa: Figure;
  /** graded only: quadratic-weighted κ on the scale */
  weightedKappa: Figure | null;
  /** Krippendorff's α of judge vs gold: nominal for pass/fail, interval for grades (raw values) */
  alpha: Figure;
  /** graded with a cut: pass/fail at grade ≥ cut */
  binary: { cut: number; accuracy: Figure; kappa: Figure; confusion: Confusion } | null;
  confusion: Confusion;
  disagreements: LabelPair[];
};

export const PASS_FAIL_CATEGORIES = [1, 0] as const;

export function proportionFigure(successes: number, n: number): Figure {
  const ci = wilsonInterval(successes, n);
  const nan = (x: number) => (Number.isNaN(x) ? null : x);
  return { value: nan(ci.value), low: nan(ci.low), high: nan(ci.high), n, method: "wilson" };
}

export function bootstrapFigure<T>(
  items: readonly T[],
  stat: (s: readonly T[]) => number | null,
  opts?: BootstrapOptions,
): Figure {
  return { ...bootstrapStatCI(items, stat, opts), method: "bootstrap" };
}

function check(pairs: readonly LabelPair[], cats: readonly number[]): void {
  const ok = new Set(cats);
  for (const p of pairs)
    for (const [who, v] of [
      ["gold", p.gold],
      ["judge", p.judge],
    ] as const)
      if (!ok.has(v))
        throw new RangeError(`item "${p.itemId}": ${who} label ${v} is not one of ${cats.join(", ")}`);
}

/** The distinct (gold, judge, raw) cells of the pairs and how many items each holds. */
function cellsOf(pairs: readonly LabelPair[]) {
  const at = new Map<string, number>();
  const gold: number[] = [];
  const judge: number[] = [];
  const raw: number[] = [];
  const counts: number[] = [];
  for (const p of pairs) {
    const r = p.judgeRaw ?? p.judge;
    const k = `${p.gold} ${p.judge} ${r}`;
    const i = at.get(k);
    if (i !== undefined) counts[i]++;
    else {
      at.set(k, counts.length);
      gold.push(p.gold);
      judge.push(p.judge);
      raw.push(r);
      counts.push(1);
    }
  }
  return { gold, judge, raw, counts };
}

/** A confusion matrix over `k` categories from cell counts, each cell at (row[c], col[c]). */
function matrixOf(w: ArrayLike<number>, row: readonly number[], col: readonly number[], k: number) {
  const m = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let c = 0; c < w.length; c++) m[row[c]][col[c]] += w[c];
  return m;
}

/**
 * The agreement of one judge with the gold labels over `pairs` (one per item). Point estimates come
 * from the items; intervals from the bootstrap of the cell counts (bootstrapCountsCI), one shared
 * resample for κ, weighted κ, α and binary κ. A graded confusion matrix shows the labels that occur,
 * in scale order; weighted κ measures distance on the label values, so a gap stays a gap.
 */
export function pointwiseAgreement(pairs: readonly LabelPair[], opts: PointwiseOptions): PointwiseReport {
  const graded = opts.kind === "graded";
  const cats = graded
    ? [...(opts.scale ?? [...new Set(pairs.flatMap((p) => [p.gold, p.judge]))].sort((a, b) => a - b))]
    : [...PASS_FAIL_CATEGORIES];
  check(pairs, cats);
  const goldOf = pairs.map((p) => p.gold);
  const judgeOf = pairs.map((p) => p.judge);
  const occurring = new Set([...goldOf, ...judgeOf]);
  const shown = graded ? cats.filter((c) => occurring.has(c)) : cats;
  const confusion = confusionMatrix(goldOf, judgeOf, shown);
  const index = new Map(shown.map((c, i) => [c, i]));
  const cells = cellsOf(pairs);
  const row = cells.gold.map((g) => index.get(g) as number);
  const col = cells.judge.map((j) => index.get(j) as number);
  const k = shown.length;
  const cut = graded ? opts.cut : undefined;
  const bin = (v: number) => (cut !== undefined && v >= cut ? 0 : 1); // index in PASS_FAIL_CATEGORIES
  const binRow = cells.gold.map(bin);
  const binCol = cells.judge.map(bin);

  const stats: CountStat[] = [
    (w) => cohenKappaFromConfusion(matrixOf(w, row, col, k)),
    graded
      ? (w) => krippendorffAlphaIntervalFromPairs(cells.gold, cells.raw, w)
      : (w) => krippendorffAlphaNominalFromConfusion(matrixOf(w, row, col, k)),
  ];
  const points: (number | null)[] = [
    cohenKappa(goldOf, judgeOf, cats),
    graded
      ? krippendorffAlphaInterval(pairs.map((p) => [p.gold, p.judgeRaw ?? p.judge])).alpha
      : krippendorffAlphaNominal(pairs.map((p) => [p.gold, p.judge])).alpha,
  ];
  if (graded) {
    stats.push((w) => weightedKappaFromConfusion(matrixOf(w, row, col, k), "quadratic", shown));
    points.push(weightedKappaFromConfusion(confusion.matrix, "quadratic", shown));
  }
  if (cut !== undefined) {
    stats.push((w) => cohenKappaFromConfusion(matrixOf(w, binRow, binCol, 2)));
    points.push(
      cohenKappa(
        goldOf.map((v) => PASS_FAIL_CATEGORIES[bin(v)]),
        judgeOf.map((v) => PASS_FAIL_CATEGORIES[bin(v)]),
        PASS_FAIL_CATEGORIES,
      ),
    );
  }
  const ci = bootstrapCountsCI(cells.counts, stats, points, opts.bootstrap);
  const fig = (i: number): Figure => ({ ...ci[i], method: "bootstrap" });
  let binary: PointwiseReport["binary"] = null;
  if (cut !== undefined) {
    const binGold = goldOf.map((v) => PASS_FAIL_CATEGORIES[bin(v)] as number);
    const binJudge = judgeOf.map((v) => PASS_FAIL_CATEGORIES[bin(v)] as number);
    binary = {
      cut,
      accuracy: proportionFigure(binGold.filter((g, i) => g === binJudge[i]).length, pairs.length),
      kappa: fig(3),
      confusion: confusionMatrix(binGold, binJudge, [...PASS_FAIL_CATEGORIES]),
    };
  }
  return {
    n: pairs.length,
    accuracy: proportionFigure(pairs.filter((p) => p.gold === p.judge).length, pairs.length),
    kappa: fig(0),
    weightedKappa: graded ? fig(2) : null,
    alpha: fig(1),
    binary,
    confusion,
    disagreements: pairs.filter((p) => p.gold !== p.judge),
  };
}
