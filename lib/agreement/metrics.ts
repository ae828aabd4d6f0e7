/**
 * Agreement of one judge with gold labels (a person's, or a published set's) over the items both
 * labelled: accuracy, Cohen's κ, quadratic-weighted κ (graded labels), Krippendorff's α, the
 * confusion matrix and the disagreements. Every figure carries its n and a 95 % interval: Wilson for
 * a proportion (accuracy), a percentile bootstrap over items for κ, weighted κ and α.
 *
 * Items a judge did not answer are not guessed: the caller leaves them out and names them apart.
 */
import { type BootstrapOptions, bootstrapStatCI } from "../stats/bootstrap";
import { cohenKappa, confusionMatrix, weightedKappa } from "../stats/kappa";
import { krippendorffAlphaInterval, krippendorffAlphaNominal } from "../stats/krippendorff";
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

/** The agreement of one judge with the gold labels over `pairs` (one per item). */
export function pointwiseAgreement(pairs: readonly LabelPair[], opts: PointwiseOptions): PointwiseReport {
  const graded = opts.kind === "graded";
  const cats = graded
    ? [...(opts.scale ?? [...new Set(pairs.flatMap((p) => [p.gold, p.judge]))].sort((a, b) => a - b))]
    : [...PASS_FAIL_CATEGORIES];
  check(pairs, cats);
  const bs = opts.bootstrap;
  const gold = (s: readonly LabelPair[]) => s.map((p) => p.gold);
  const judge = (s: readonly LabelPair[]) => s.map((p) => p.judge);
  const kappa = (s: readonly LabelPair[]) => cohenKappa(gold(s), judge(s), cats);
  const alpha = graded
    ? (s: readonly LabelPair[]) =>
        krippendorffAlphaInterval(s.map((p) => [p.gold, p.judgeRaw ?? p.judge])).alpha
    : (s: readonly LabelPair[]) => krippendorffAlphaNominal(s.map((p) => [p.gold, p.judge])).alpha;
  const correct = pairs.filter((p) => p.gold === p.judge).length;
  let binary: PointwiseReport["binary"] = null;
  if (graded && opts.cut !== undefined) {
    const cut = opts.cut;
    const bin = (v: number) => (v >= cut ? 1 : 0);
    const binKappa = (s: readonly LabelPair[]) =>
      cohenKappa(
        s.map((p) => bin(p.gold)),
        s.map((p) => bin(p.judge)),
        PASS_FAIL_CATEGORIES,
      );
    binary = {
      cut,
      accuracy: proportionFigure(pairs.filter((p) => bin(p.gold) === bin(p.judge)).length, pairs.length),
      kappa: bootstrapFigure(pairs, binKappa, bs),
      confusion: confusionMatrix(
        pairs.map((p) => bin(p.gold)),
        pairs.map((p) => bin(p.judge)),
        [...PASS_FAIL_CATEGORIES],
      ),
    };
  }
  return {
    n: pairs.length,
    accuracy: proportionFigure(correct, pairs.length),
    kappa: bootstrapFigure(pairs, kappa, bs),
    weightedKappa: graded
      ? bootstrapFigure(pairs, (s) => weightedKappa(gold(s), judge(s), cats, "quadratic"), bs)
      : null,
    alpha: bootstrapFigure(pairs, alpha, bs),
    binary,
    confusion: confusionMatrix(gold(pairs), judge(pairs), cats),
    disagreements: pairs.filter((p) => p.gold !== p.judge),
  };
}
